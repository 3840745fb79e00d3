import FerryPrivatePostgres
import Logging
import PostgresNIO

/// The `error` field of a log line. `PSQLError`'s own description is a fixed sentence ("Generic
/// description to prevent accidental leakage of sensitive data") that tells an operator nothing, and
/// its debug description repeats the whole statement; a database error is therefore logged as the
/// server's severity, SQLSTATE, message, detail and hint, or the connection failure and its cause
/// (`PostgresErrorDescription`). Any other error is logged as its debug description.
package enum LoggedError {
    package static func metadata(_ error: any Error) -> Logger.MetadataValue {
        .string(text(error))
    }

    package static func text(_ error: any Error) -> String {
        if error is PSQLError || error is PostgresTransactionError {
            return PostgresErrorDescription.describe(error)
        }
        return String(reflecting: error)
    }
}
