import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Small helpers shared by the engine tests.
enum Fixture {
    /// The bytes `/bytes/{n}` serves: byte i is `UInt8(i % 251)`.
    static func pattern(_ count: Int, from offset: Int = 0) -> Data {
        Data((offset..<(offset + count)).map { UInt8($0 % 251) })
    }

    static func url(_ string: String) -> URL {
        guard let url = URL(string: string) else { fatalError("bad test URL \(string)") }
        return url
    }

    static func request(_ string: String, method: String = "GET") -> TransferRequest {
        TransferRequest(url: url(string), method: method)
    }

    /// A session with a configuration tweak; no delegate unless given.
    static func session(
        _ configure: (inout SessionConfiguration) -> Void = { _ in }, delegate: (any SessionDelegate)? = nil
    ) throws -> Session {
        var configuration = SessionConfiguration.default
        configure(&configuration)
        return try Session(configuration: configuration, delegate: delegate)
    }

    /// Runs `body` with a fresh origin server on 127.0.0.1, shutting it down afterwards.
    static func withOrigin<T>(
        tls: OriginServer.TLSOptions? = nil, _ body: (OriginServer) async throws -> T
    ) async throws -> T {
        try await OriginServer.withRunning(tls: tls, body)
    }

    /// Parses `/echo`'s JSON report.
    static func echo(_ data: Data) throws -> EchoReport {
        try EchoReport(data)
    }

    /// Waits until `condition` holds, polling; fails the test after `timeout`.
    static func eventually(
        timeout: Duration = .seconds(30), _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now > deadline {
                Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
