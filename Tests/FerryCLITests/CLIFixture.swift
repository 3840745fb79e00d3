import Foundation
import Testing
import URLLoadingTestSupport

/// Helpers shared by the `ferry` command-line tests.
enum CLIFixture {
    /// Runs `body` with a fresh origin server on 127.0.0.1, shutting it down afterwards.
    static func withOrigin<T>(
        tls: OriginServer.TLSOptions? = nil, _ body: (OriginServer) async throws -> T
    ) async throws -> T {
        try await OriginServer.withRunning(tls: tls, body)
    }

    /// Runs `body` with a new empty directory, removed afterwards.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ferry-cli-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// The bytes every body route sends: byte i is `UInt8(i % 251)`.
    static func pattern(_ count: Int) -> Data {
        Data(OriginServer.patternBytes(count: count))
    }

    /// The names in `directory`, sorted; a leftover temporary download file would show up here.
    static func listing(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    static func contents(_ file: URL) -> Data? {
        FileManager.default.contents(atPath: file.path)
    }

    /// A port nothing listens on: one the system just handed out and took back.
    static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PortFailure() }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw PortFailure() }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    struct PortFailure: Error {}

    /// Asserts the run exited normally with `status`, showing what it printed when not.
    static func expectStatus(
        _ result: FerryResult, _ status: Int32, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!result.diedOfSignal, "\(result.summary)", sourceLocation: sourceLocation)
        #expect(result.status == status, "\(result.summary)", sourceLocation: sourceLocation)
    }
}
