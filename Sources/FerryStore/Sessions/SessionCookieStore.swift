import FerryVault
import Foundation
import Logging
import PostgresNIO
import URLLoading

/// `session_cookies`: the cookie jars of non-ephemeral gateway sessions, one row per cookie keyed by
/// session, name, domain and path. Cookie values are credentials: they are sealed with the vault key
/// before they reach SQL (`value_key_id`, `value_sealed`; `SealedCookieValue`), opened here, shown
/// to the session's own tenant, never logged.
public struct SessionCookieStore: Sendable {
    package let client: DatabasePool
    package let keyring: VaultKeyring
    package let logger: Logger

    public init(client: DatabasePool, keyring: VaultKeyring, logger: Logger) {
        self.client = client
        self.keyring = keyring
        self.logger = logger
    }

    package static let columns =
        "name, value, value_key_id, value_sealed, domain, path, expires_at, secure, http_only, same_site, host_only, created_at, session_id"

    /// The row's cookie; nil when its value does not open with any configured key (the jar then
    /// goes without it, as if it had expired, rather than failing every job of the session).
    package static func cookie(_ row: PostgresRow, keyring: VaultKeyring, logger: Logger) throws -> Cookie? {
        let (name, plain, keyID, sealed, domain, path, expires, secure, httpOnly, sameSite, hostOnly, created, session) =
            try row.decode((String, String?, String?, Data?, String, String, Date?, Bool, Bool, String?, Bool, Date, UUID).self)
        let value: String
        if let keyID, let sealed {
            do {
                value = try SealedCookieValue.open(
                    SealedSecret(keyID: keyID, combined: sealed), session: session, name: name, domain: domain, path: path, keyring: keyring)
            } catch {
                logger.warning("a stored cookie does not open; it is left out", metadata: ["session": "\(session)", "reason": "\(error)"])
                return nil
            }
        } else {
            value = plain ?? ""  // stored before sealing existed, and not yet sealed at start
        }
        return Cookie(
            name: name, value: value, domain: domain, path: path, expiresDate: expires, isSecure: secure, isHTTPOnly: httpOnly,
            sameSite: sameSite.flatMap(Cookie.SameSite.init(rawValue:)), isHostOnly: hostOnly, creationDate: created)
    }

    /// The session's unexpired cookies, oldest first. Callers have checked the session is the tenant's.
    public func cookies(session: UUID) async throws -> [Cookie] {
        var cookies: [Cookie] = []
        let statement = SessionCookiesStatement(session: session, keyring: keyring, logger: logger)
        for try await cookie in try await client.execute(statement, logger: logger) { if let cookie { cookies.append(cookie) } }
        return cookies
    }

    /// Writes what a jar changed: stored cookies replace those of the same identity, deleted ones go,
    /// and so do the session's expired ones. One transaction: another ferryd sees all of it or none.
    package func write(_ changes: SessionCookieChanges, session: UUID, tenant: UUID) async throws {
        let logger = self.logger
        let sealed = try changes.stored.map { cookie in
            try SealedCookieValue.seal(cookie.value, session: session, name: cookie.name, domain: cookie.domain, path: cookie.path, keyring: keyring)
        }
        try await client.transaction(logger: logger) { connection in
            for (cookie, value) in zip(changes.stored, sealed) {
                try await connection.query(
                    """
                    INSERT INTO session_cookies
                        (tenant_id, session_id, name, value_key_id, value_sealed, domain, path, expires_at, secure, http_only, same_site,
                         host_only, created_at)
                    VALUES (\(tenant), \(session), \(cookie.name), \(value.keyID), \(value.combined), \(cookie.domain), \(cookie.path),
                        \(cookie.expiresDate), \(cookie.isSecure), \(cookie.isHTTPOnly), \(cookie.sameSite?.rawValue), \(cookie.isHostOnly),
                        \(cookie.creationDate))
                    ON CONFLICT (session_id, name, domain, path) DO UPDATE SET
                        value = NULL, value_key_id = EXCLUDED.value_key_id, value_sealed = EXCLUDED.value_sealed, expires_at = EXCLUDED.expires_at, secure = EXCLUDED.secure,
                        http_only = EXCLUDED.http_only, same_site = EXCLUDED.same_site, host_only = EXCLUDED.host_only,
                        created_at = EXCLUDED.created_at, updated_at = now()
                    """, logger: logger)
            }
            for identity in changes.deleted {
                try await connection.query(
                    """
                    DELETE FROM session_cookies
                    WHERE session_id = \(session) AND name = \(identity.name) AND domain = \(identity.domain) AND path = \(identity.path)
                    """, logger: logger)
            }
            try await connection.query(
                "DELETE FROM session_cookies WHERE session_id = \(session) AND expires_at <= now()", logger: logger)
        }
    }

    /// Empties the session's jar; returns how many cookies it held.
    @discardableResult
    public func clear(session: UUID, tenant: UUID) async throws -> Int {
        let rows = try await client.query(
            "DELETE FROM session_cookies WHERE session_id = \(session) AND tenant_id = \(tenant) RETURNING 1", logger: logger)
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }
}
