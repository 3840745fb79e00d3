@testable import FerryStore
import Foundation
import Logging
import PostgresNIO
import Testing

/// What a log line's `error` field says of a failed statement: the server's words, not PSQLError's
/// fixed sentence, nor the statement's text or bound values.
@Suite("Logged errors", .timeLimit(.minutes(3)))
struct LoggedErrorTests {
    let logger = Logger(label: "ferry.tests.logged-errors")

    @Test("a failed statement is logged with its SQLSTATE and the server's message, without its text or the values bound to it")
    func databaseError() async throws {
        try await InitialSchemaTests.withMigratedDatabase(logger: logger) { _, connection, _ in
            let bound = "bound-value-\(UUID().uuidString)"
            var caught: (any Error)?
            do {
                for try await _ in try await connection.query("SELECT \(bound)::text, 1 / 0", logger: logger) {}
            } catch {
                caught = error
            }
            let error = try #require(caught)
            let text = LoggedError.text(error)
            #expect(text.contains("22012"), "\(text)")
            #expect(text.contains("division by zero"), "\(text)")
            #expect(!text.contains(bound), "\(text)")
            #expect(text != "\(error)", "PSQLError's own description says nothing of the failure")
            #expect(!text.contains("SELECT"), "the statement's text stays out of the line: \(text)")
        }
    }

    @Test("any other error is logged as its debug description")
    func otherError() {
        struct Refused: Error, CustomDebugStringConvertible {
            var debugDescription: String { "refused: the reason" }
        }
        #expect(LoggedError.text(Refused()) == "refused: the reason")
    }
}
