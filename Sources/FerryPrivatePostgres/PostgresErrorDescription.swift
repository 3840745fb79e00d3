import PostgresNIO

/// Readable text for an error from PostgresNIO, for operators' eyes (logs, `ferryd migrate` output).
///
/// `PSQLError.description` is deliberately generic (so it cannot leak into API responses), and its
/// `debugDescription` repeats the query's whole text (its bound values shown as `****`). This keeps
/// the useful middle: the server's severity, SQLSTATE, message, detail and hint, or the kind of
/// connection failure and its cause. Never put it in an API response.
public enum PostgresErrorDescription {
    public static func describe(_ error: any Error) -> String {
        if let transactionError = error as? PostgresTransactionError {
            let parts = [transactionError.beginError, transactionError.closureError, transactionError.commitError, transactionError.rollbackError]
            return parts.compactMap { $0 }.map(describe).joined(separator: "; ")
        }
        guard let error = error as? PSQLError else {
            return "\(error)"
        }
        if let server = error.serverInfo {
            var text = "\(server[.severity] ?? "ERROR")"
            if let state = server[.sqlState] {
                text += " \(state)"
            }
            text += ": \(server[.message] ?? "(no message)")"
            if let detail = server[.detail] {
                text += " (\(detail))"
            }
            if let hint = server[.hint] {
                text += " hint: \(hint)"
            }
            return text
        }
        if let underlying = error.underlying {
            return "\(error.code): \(underlying)"
        }
        return "\(error.code)"
    }

    /// The SQLSTATE of a server error (e.g. "42P04" for a database that already exists), if it is one.
    public static func sqlState(of error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}
