import Foundation

/// A throwaway PKI made with the `openssl` command line tool: a self-signed CA, a server
/// certificate it signed for `localhost` and `127.0.0.1`, and a client certificate it signed,
/// for mutual TLS; besides, a self-signed server certificate (no CA) for the same names, and a
/// self-signed client certificate the CA never saw. Everything lives in one fresh temporary directory.
///
/// Generated per test run rather than committed, so nothing in the repository expires.
public struct TestCertificates: Sendable, Hashable {
    /// Password of `clientPKCS12Path`.
    public static let clientPKCS12Password = "ferry"

    /// The directory that holds every file below.
    public let directory: String
    public let caCertificatePath: String
    public let caCertificatePEM: String
    public let serverCertificatePath: String
    public let serverKeyPath: String
    public let clientCertificatePath: String
    public let clientKeyPath: String
    /// The client certificate and key as PKCS#12, protected by `clientPKCS12Password`.
    public let clientPKCS12Path: String
    /// A server certificate that signed itself, for `localhost` and `127.0.0.1`.
    public let selfSignedServerCertificatePath: String
    public let selfSignedServerKeyPath: String
    /// A client certificate that signed itself: a server trusting only the test CA refuses it.
    public let strangerClientCertificatePath: String
    public let strangerClientKeyPath: String

    public var serverCertificatePEM: String { (try? String(contentsOfFile: serverCertificatePath, encoding: .utf8)) ?? "" }
    public var clientCertificatePEM: String { (try? String(contentsOfFile: clientCertificatePath, encoding: .utf8)) ?? "" }
    public var clientKeyPEM: String { (try? String(contentsOfFile: clientKeyPath, encoding: .utf8)) ?? "" }

    /// The openssl used; Debian's package `openssl` installs it here.
    static let openssl = CommandLineTool(executablePath: "/usr/bin/openssl")

    /// Creates the CA, server and client certificates (RSA 2048, valid for 10 years).
    ///
    /// It waits for several openssl processes on a Dispatch thread: blocking one of the few
    /// cooperative threads that long starves every other test's async work in the process (origin
    /// servers included), and their timeouts fire.
    /// - Throws: `TestServerError.toolMissing` without openssl, `.toolFailed` (with openssl's
    ///   standard error) when a step fails.
    public static func generate() async throws -> TestCertificates {
        try await offTheCooperativePool { try generateNow() }
    }

    private static func generateNow() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ferry-certificates-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            try createFiles(in: directory)
            return try describeFiles(in: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Runs openssl to create the keys and certificates in `directory`.
    private static func createFiles(in directory: URL) throws {
        try write(
            """
            [ca]
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash

            [server]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature, keyEncipherment
            extendedKeyUsage = serverAuth
            subjectAltName = DNS:localhost, IP:127.0.0.1
            authorityKeyIdentifier = keyid

            [self_signed_server]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature, keyEncipherment, keyCertSign
            extendedKeyUsage = serverAuth
            subjectAltName = DNS:localhost, IP:127.0.0.1
            subjectKeyIdentifier = hash

            [self_signed_client]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature, keyEncipherment
            extendedKeyUsage = clientAuth
            subjectKeyIdentifier = hash

            [client]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature, keyEncipherment
            extendedKeyUsage = clientAuth
            authorityKeyIdentifier = keyid

            """,
            to: "extensions.cnf",
            in: directory
        )
        let run = { (arguments: [String]) in try openssl.run(arguments, in: directory) }
        try run([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem", "-out", "ca.pem",
            "-days", "3650", "-subj", "/CN=Ferry Test CA", "-extensions", "ca", "-config", "extensions.cnf",
        ])
        for (name, commonName) in [("server", "localhost"), ("client", "ferry-test-client")] {
            try run([
                "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name)-key.pem", "-out", "\(name).csr",
                "-subj", "/CN=\(commonName)",
            ])
            try run([
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
                "-set_serial", "0x" + randomSerial(), "-days", "3650", "-sha256", "-out", "\(name).pem",
                "-extfile", "extensions.cnf", "-extensions", name,
            ])
        }
        for (name, commonName, section) in [
            ("self-signed-server", "localhost", "self_signed_server"), ("stranger-client", "ferry-stranger", "self_signed_client"),
        ] {
            try run([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name)-key.pem", "-out", "\(name).pem",
                "-days", "3650", "-subj", "/CN=\(commonName)", "-extensions", section, "-config", "extensions.cnf",
                "-set_serial", "0x" + randomSerial(),
            ])
        }
        try run([
            "pkcs12", "-export", "-in", "client.pem", "-inkey", "client-key.pem", "-certfile", "ca.pem",
            "-name", "ferry-test-client", "-out", "client.p12", "-passout", "pass:\(clientPKCS12Password)",
        ])
    }

    private static func describeFiles(in directory: URL) throws -> TestCertificates {
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        return TestCertificates(
            directory: directory.path,
            caCertificatePath: path("ca.pem"),
            caCertificatePEM: try String(contentsOfFile: path("ca.pem"), encoding: .utf8),
            serverCertificatePath: path("server.pem"),
            serverKeyPath: path("server-key.pem"),
            clientCertificatePath: path("client.pem"),
            clientKeyPath: path("client-key.pem"),
            clientPKCS12Path: path("client.p12"),
            selfSignedServerCertificatePath: path("self-signed-server.pem"),
            selfSignedServerKeyPath: path("self-signed-server-key.pem"),
            strangerClientCertificatePath: path("stranger-client.pem"),
            strangerClientKeyPath: path("stranger-client-key.pem")
        )
    }

    /// curl's `sha256//<base64>` pin of the public key of the certificate at `path`, computed with
    /// openssl, independently of Ferry.
    public func publicKeyPin(ofCertificateAt path: String) async throws -> String {
        try await Self.offTheCooperativePool { try publicKeyPinNow(ofCertificateAt: path) }
    }

    private func publicKeyPinNow(ofCertificateAt path: String) throws -> String {
        let directory = URL(fileURLWithPath: directory)
        let name = "pin-\(UUID().uuidString)"
        try Self.openssl.run(["x509", "-in", path, "-pubkey", "-noout", "-out", "\(name).pem"], in: directory)
        try Self.openssl.run(["pkey", "-pubin", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).der"], in: directory)
        try Self.openssl.run(["dgst", "-sha256", "-binary", "-out", "\(name).sha256", "\(name).der"], in: directory)
        let digest = try Data(contentsOf: directory.appendingPathComponent("\(name).sha256"))
        return "sha256//" + digest.base64EncodedString()
    }

    private static func offTheCooperativePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Distinct serials per run, so a client caching certificates never confuses two runs.
    private static func randomSerial() -> String {
        (0..<16).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }

    private static func write(_ text: String, to name: String, in directory: URL) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }
}
