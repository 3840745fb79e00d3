import Foundation
import Logging
import PostgresNIO

/// Small questions tests ask a PostgreSQL server or the operating system about one.
public enum PostgresProbe {
    public static let logger = Logger(label: "ferry.tests.probe")

    /// The first column of the first row of `query`, as `Value`.
    public static func value<Value: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as type: Value.Type, on configuration: PostgresConnection.Configuration
    ) async throws -> Value? {
        try await PostgresConnection.withConnection(configuration: configuration, logger: logger) { connection in
            try await value(query, as: type, on: connection)
        }
    }

    public static func value<Value: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as type: Value.Type, on connection: PostgresConnection
    ) async throws -> Value? {
        var found: Value?
        for try await value in try await connection.query(query, logger: logger).decode(Value.self) where found == nil {
            found = value
        }
        return found
    }

    /// Runs `query`, reading its rows (if any) to the end.
    public static func execute(_ query: PostgresQuery, on connection: PostgresConnection) async throws {
        for try await _ in try await connection.query(query, logger: logger) {}
    }

    /// The real user id a process runs as, from /proc.
    public static func userID(of pid: Int32) -> UInt32? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }
        return line?.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap { UInt32($0) }
    }

    /// Pids of processes whose working directory is `directory` (a PostgreSQL server and its children).
    public static func processes(workingIn directory: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) == directory
        }
    }

    /// Collects the exits of `pids` that are children of this process (others are left to their parent).
    public static func collect(_ pids: [Int32]) {
        for pid in pids {
            for _ in 0..<100 {
                var status: Int32 = 0
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid || result == -1 { break }
                usleep(10_000)
            }
        }
    }

    /// Waits until `condition` holds, up to `timeout`.
    public static func wait(timeout: Duration = .seconds(30), until condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}
