import FerryModel
import PostgresNIO

/// Which failures mean "the database is away" rather than "this statement is wrong", and the one
/// refusal every caller sees for them: `database_unavailable`, which the API answers with a 503 and
/// `Retry-After` instead of a 500.
///
/// A statement that fails this way may or may not have been committed (the server can stop between
/// the commit and its reply): callers that retry writes rely on those writes being safe to repeat
/// (an `Idempotency-Key`, a lease check).
public enum DatabaseOutage {
    public static let code = "database_unavailable"
    /// What `Retry-After` says: the pool looks for the database several times a second, so a client
    /// that waits this long finds it again soon after it is back.
    public static let retryAfterSeconds = 2

    public static var refusal: GatewayError {
        GatewayError(
            .unavailable, code: code, "the database cannot be reached; try again shortly", retryAfterSeconds: retryAfterSeconds)
    }

    /// True for a lost or refused connection, a pool that was shut down under the caller because the
    /// database went away, the server's own "shutting down" / "starting up" errors, and a server that
    /// ends the session (FATAL) for any reason but being full.
    public static func describes(_ error: any Error) -> Bool {
        switch error {
        case let refusal as GatewayError:
            return refusal.code == code
        case let failure as PostgresTransactionError:
            return [failure.beginError, failure.closureError, failure.commitError].contains { $0.map(describes) ?? false }
        case let failure as PSQLError:
            switch failure.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                return true
            case .server:
                // Class 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now.
                guard let info = failure.serverInfo, let state = info[.sqlState] else { return false }
                if state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) { return true }
                // A FATAL ends the session; when connecting, it is the server refusing us this
                // database: dropped or renamed (3D000), not accepting connections (55000), the role or
                // its password refused (class 28). Taken for anything else, PostgresClient would keep
                // each call waiting for a connection that never comes, for a minute. Not class 53
                // ("too many clients"): the pool's connections still open may well work.
                return ["FATAL", "PANIC"].contains(info[.severity]) && !state.hasPrefix("53")
            default:
                return false
            }
        default:
            // PostgresNIO's pool gives up on connecting (its circuit breaker) with an error of its
            // connection-pool module, which this package does not import.
            return String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError")
        }
    }

    /// `error` as callers above the store should see it: the refusal when it is an outage, else itself.
    public static func translated(_ error: any Error) -> any Error {
        describes(error) ? refusal : error
    }
}
