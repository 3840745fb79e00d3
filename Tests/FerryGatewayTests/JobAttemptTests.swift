import Crypto
import Foundation
import Testing
import URLLoading
import URLLoadingTestSupport
@testable import FerryGateway

@Suite("Job attempts", .timeLimit(.minutes(1)))
struct JobAttemptTests {
    private func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8($0 % 251) }) }

    private func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    private func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-attempt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    private func request(_ string: String) -> TransferRequest { TransferRequest(url: URL(string: string)!) }

    @Test("a 2xx download is placed with its size, SHA-256 and content type")
    func success() async throws {
        try await OriginServer.withRunning { origin in
            try await withDirectory { directory in
                let destination = directory.appendingPathComponent("result")
                let outcome = await JobAttempt(session: try Session()).download(request(origin.url("/bytes/300000")), to: destination)
                guard case .succeeded(let result, let response) = outcome else {
                    Issue.record("expected success, got \(outcome)")
                    return
                }
                #expect(response.statusCode == 200)
                #expect(result == .init(size: 300_000, sha256: sha256(pattern(300_000)), contentType: "application/octet-stream"))
                #expect(try Data(contentsOf: destination) == pattern(300_000))
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["result"])
            }
        }
    }

    @Test("a matching checksum passes; a wrong one fails with checksum_mismatch and leaves no file")
    func checksum() async throws {
        try await OriginServer.withRunning { origin in
            try await withDirectory { directory in
                let attempt = JobAttempt(session: try Session())
                let destination = directory.appendingPathComponent("checked")
                let good = await attempt.download(request(origin.url("/bytes/1000")), to: destination, expectedSHA256: sha256(pattern(1000)).uppercased())
                if case .succeeded = good {} else { Issue.record("expected success, got \(good)") }
                try FileManager.default.removeItem(at: destination)

                let bad = await attempt.download(request(origin.url("/bytes/1000")), to: destination, expectedSHA256: String(repeating: "0", count: 64))
                guard case .failed(let code, _, let failure, _) = bad else {
                    Issue.record("expected a failure, got \(bad)")
                    return
                }
                #expect(code == "checksum_mismatch")
                #expect(failure == nil)
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            }
        }
    }

    @Test("HTTP errors keep their status and Retry-After for the retry policy; no file is kept")
    func httpError() async throws {
        try await OriginServer.withRunning { origin in
            try await withDirectory { directory in
                let outcome = await JobAttempt(session: try Session()).download(
                    request(origin.url("/status/503")), to: directory.appendingPathComponent("x"))
                guard case .failed(let code, _, let failure, let response) = outcome else {
                    Issue.record("expected a failure, got \(outcome)")
                    return
                }
                #expect(code == "http_error")
                #expect(failure == .httpStatus(503, retryAfter: nil))
                #expect(response?.statusCode == 503)
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            }
        }
    }

    @Test("a transfer failure is classified by its engine code")
    func transferFailure() async throws {
        try await OriginServer.withRunning { origin in
            try await withDirectory { directory in
                let outcome = await JobAttempt(session: try Session()).download(
                    request(origin.url("/drop?bytes=50000")), to: directory.appendingPathComponent("x"))
                guard case .failed(let code, _, let failure, _) = outcome else {
                    Issue.record("expected a failure, got \(outcome)")
                    return
                }
                #expect(code == "network_connection_lost")
                #expect(failure == .transfer(.networkConnectionLost))
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            }
        }
    }
}
