import Foundation
import Testing
import URLLoadingTestSupport

@Suite("ferry get: TLS options", .timeLimit(.minutes(3)))
struct TLSOptionTests {
    private func withOrigin(
        _ options: (TestCertificates) -> OriginServer.TLSOptions, _ body: (OriginServer, TestCertificates) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        try await CLIFixture.withOrigin(tls: options(certificates)) { origin in try await body(origin, certificates) }
    }

    // TLS-08, TLS-09: --pinnedpubkey accepts a trusted server whose key matches one of the hashes and
    // refuses one whose key matches none; a matching pin never makes an untrusted certificate trusted.
    @Test func pinnedPublicKey() async throws {
        try await withOrigin({ .init(certificates: $0) }) { origin, certificates in
            let url = "https://127.0.0.1:\(origin.port)/bytes/100"
            let pin = try await certificates.publicKeyPin(ofCertificateAt: certificates.serverCertificatePath)
            let otherPin = try await certificates.publicKeyPin(ofCertificateAt: certificates.clientCertificatePath)

            let matching = try await FerryProcess.run(
                ["get", url, "--cacert", certificates.caCertificatePath, "--pinnedpubkey", "\(otherPin);\(pin)"])
            CLIFixture.expectStatus(matching, 0)
            #expect(matching.standardOutput == CLIFixture.pattern(100))

            let wrong = try await FerryProcess.run(["get", url, "--cacert", certificates.caCertificatePath, "--pinnedpubkey", otherPin])
            CLIFixture.expectStatus(wrong, 1)
            #expect(wrong.standardError.hasPrefix("ferry: \(url): server_certificate_untrusted: "), "\(wrong.summary)")

            let untrusted = try await FerryProcess.run(["get", url, "--pinnedpubkey", pin])
            CLIFixture.expectStatus(untrusted, 1)
            #expect(untrusted.standardError.hasPrefix("ferry: \(url): server_certificate_untrusted: "), "\(untrusted.summary)")

            let malformed = try await FerryProcess.run(["get", url, "--pinnedpubkey", "md5//abc"])
            CLIFixture.expectStatus(malformed, 2)
        }
    }

    // TLS-11, AU-17: --cert/--key (PEM) and --cert with --cert-type P12 and --pass pass a server that
    // requires a client certificate; without one the server's refusal is reported.
    @Test func clientCertificates() async throws {
        try await withOrigin({ .init(certificates: $0, requireClientCertificate: true) }) { origin, certificates in
            let url = "https://127.0.0.1:\(origin.port)/bytes/50"
            let trust = ["--cacert", certificates.caCertificatePath]

            let pem = try await FerryProcess.run(
                ["get", url] + trust + ["--cert", certificates.clientCertificatePath, "--key", certificates.clientKeyPath])
            CLIFixture.expectStatus(pem, 0)
            #expect(pem.standardOutput == CLIFixture.pattern(50))

            let p12 = try await FerryProcess.run(
                ["get", url] + trust
                    + ["--cert", certificates.clientPKCS12Path, "--cert-type", "P12", "--pass", TestCertificates.clientPKCS12Password])
            CLIFixture.expectStatus(p12, 0)
            #expect(p12.standardOutput == CLIFixture.pattern(50))

            let none = try await FerryProcess.run(["get", url] + trust)
            CLIFixture.expectStatus(none, 1)
            #expect(none.standardError.hasPrefix("ferry: \(url): client_certificate_rejected: "), "\(none.summary)")

            let keyless = try await FerryProcess.run(["get", url] + trust + ["--cert", certificates.clientCertificatePath])
            CLIFixture.expectStatus(keyless, 2)
            #expect(keyless.standardError.contains("no PEM private key"), "\(keyless.summary)")
        }
    }

    // TLS-12, SES-20: --tlsv1.3 against a TLS 1.2-only server fails with a TLS error naming the version;
    // --tls-max 1.2 caps what the server sees.
    @Test func versionBounds() async throws {
        try await withOrigin({ .init(certificates: $0, maximumTLSVersion: .tls12) }) { origin, certificates in
            let url = "https://127.0.0.1:\(origin.port)/tls-info"
            let trust = ["--cacert", certificates.caCertificatePath]
            let tooNew = try await FerryProcess.run(["get", url, "--tlsv1.3"] + trust)
            CLIFixture.expectStatus(tooNew, 1)
            #expect(tooNew.standardError.hasPrefix("ferry: \(url): secure_connection_failed: "), "\(tooNew.summary)")
            #expect(tooNew.standardError.contains("TLS 1.3"), "\(tooNew.summary)")

            let fine = try await FerryProcess.run(["get", url, "--tlsv1.2"] + trust)
            CLIFixture.expectStatus(fine, 0)
        }
        try await withOrigin({ .init(certificates: $0) }) { origin, certificates in
            let url = "https://127.0.0.1:\(origin.port)/tls-info"
            let capped = try await FerryProcess.run(["get", url, "--tls-max", "1.2", "--cacert", certificates.caCertificatePath])
            CLIFixture.expectStatus(capped, 0)
            #expect(String(decoding: capped.standardOutput, as: UTF8.self).contains("TLSv1.2"))

            let contradictory = try await FerryProcess.run(["get", url, "--tlsv1.3", "--tls-max", "1.2"])
            CLIFixture.expectStatus(contradictory, 2)
        }
    }

    // TLS-02: -k/--insecure accepts a self-signed server and says so on standard error; without it
    // the same server is refused.
    @Test func insecureWarns() async throws {
        try await withOrigin({ .init(certificates: $0, selfSigned: true) }) { origin, _ in
            let url = "https://127.0.0.1:\(origin.port)/bytes/20"
            let insecure = try await FerryProcess.run(["get", url, "-k"])
            CLIFixture.expectStatus(insecure, 0)
            #expect(insecure.standardOutput == CLIFixture.pattern(20))
            #expect(insecure.standardError.contains("warning: --insecure"), "\(insecure.summary)")

            let long = try await FerryProcess.run(["get", url, "--insecure", "-s"])
            CLIFixture.expectStatus(long, 0)
            #expect(long.standardError.contains("warning: --insecure"), "\(long.summary)")

            let checked = try await FerryProcess.run(["get", url])
            CLIFixture.expectStatus(checked, 1)
            #expect(checked.standardError.hasPrefix("ferry: \(url): server_certificate_untrusted: "), "\(checked.summary)")
            #expect(!checked.standardError.contains("warning"))
        }
    }
}
