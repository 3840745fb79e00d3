import FerryModel
import Logging
import PostgresNIO

extension DatabasePool {
    /// `withTransaction`, except that a `GatewayError` thrown by `body` (a refusal, after which the
    /// transaction is rolled back) reaches the caller as itself rather than wrapped in
    /// `PostgresTransactionError`: callers above the store see domain errors only. The transaction's
    /// span names the caller's place, not this one's.
    package func transaction<Result>(
        logger: Logger, file: String = #file, line: Int = #line, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        do {
            return try await withTransaction(logger: logger, file: file, line: line, isolation: isolation, body)
        } catch let error as PostgresTransactionError {
            if let refusal = error.closureError as? GatewayError, error.rollbackError == nil { throw refusal }
            throw error
        }
    }
}
