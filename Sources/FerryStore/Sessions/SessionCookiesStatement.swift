import FerryVault
import Foundation
import Logging
import PostgresNIO
import URLLoading

/// A session's unexpired cookies, oldest first: read before every job of the session
/// (`SessionCookieJars.prepare`), so prepared once per connection rather than parsed and planned
/// each time (bench P3).
struct SessionCookiesStatement: PostgresPreparedStatement {
    /// Nil for a cookie whose value does not open (`SessionCookieStore.cookie`).
    typealias Row = Cookie?

    static let sql = """
        SELECT \(SessionCookieStore.columns) FROM session_cookies
        WHERE session_id = $1 AND (expires_at IS NULL OR expires_at > now())
        ORDER BY created_at, name, domain, path
        """
    static let bindingDataTypes: [PostgresDataType] = [.uuid]

    var session: UUID
    var keyring: VaultKeyring
    var logger: Logger

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(session)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try SessionCookieStore.cookie(row, keyring: keyring, logger: logger)
    }
}
