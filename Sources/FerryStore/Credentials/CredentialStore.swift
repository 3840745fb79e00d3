import FerryModel
import FerryVault
import Foundation
import Logging
import PostgresNIO

/// The tenants' credentials (`credentials`): sealed on the way in, opened only for a job's challenge
/// (or a re-seal), never for a view.
public struct CredentialStore: Sendable {
    package let client: DatabasePool
    package let keyring: VaultKeyring
    package let logger: Logger

    public init(client: DatabasePool, keyring: VaultKeyring, logger: Logger) {
        self.client = client
        self.keyring = keyring
        self.logger = logger
    }

    /// A validated `POST /v1/credentials`.
    package struct NewCredential: Sendable {
        package var space: VaultProtectionSpace
        package var persistence: CredentialRecord.Persistence
        package var sessionID: UUID?
        package var secret: VaultSecret

        package init(space: VaultProtectionSpace, persistence: CredentialRecord.Persistence, sessionID: UUID? = nil, secret: VaultSecret) {
            self.space = space
            self.persistence = persistence
            self.sessionID = sessionID
            self.secret = secret
        }
    }

    /// Seals the secret for its row (the id is chosen here: it is part of the associated data) and
    /// stores it. A session credential needs a live session of the same tenant.
    package func create(_ new: NewCredential, tenant: UUID) async throws -> CredentialRecord {
        if let session = new.sessionID {
            let rows = try await client.query(
                "SELECT invalidated_at IS NOT NULL FROM sessions WHERE id = \(session) AND tenant_id = \(tenant)", logger: logger)
            var invalidated: Bool?
            for try await value in rows.decode(Bool.self) { invalidated = value }
            guard let invalidated else {
                throw GatewayError(.notFound, code: "session_not_found", "session \(session.lowercasedString) was not found")
            }
            if invalidated {
                throw GatewayError(.conflict, code: "session_invalidated", "session \(session) is invalidated: it runs no more jobs to use a credential")
            }
        }
        let id = UUID()
        let sealed = try new.secret.sealed(by: keyring, tenant: tenant, row: id)
        let space = new.space
        let rows = try await client.query(
            """
            INSERT INTO credentials (id, tenant_id, scheme, host, port, realm, method, persistence, session_id, secret_kind, key_id, sealed)
            VALUES (\(id), \(tenant), \(space.scheme), \(space.host), \(Int32(space.port)), \(space.realm), \(space.method.rawValue),
                    \(new.persistence.rawValue), \(new.sessionID), \(new.secret.kind), \(sealed.keyID), \(sealed.combined))
            RETURNING \(unescaped: CredentialRecord.columns)
            """, logger: logger)
        for try await row in rows { return try CredentialRecord(row: row) }
        throw StoreInvariantError("the credential was not stored")
    }

    package func credential(_ id: UUID, tenant: UUID) async throws -> CredentialRecord? {
        let rows = try await client.query(
            "SELECT \(unescaped: CredentialRecord.columns) FROM credentials WHERE id = \(id) AND tenant_id = \(tenant)", logger: logger)
        for try await row in rows { return try CredentialRecord(row: row) }
        return nil
    }

    /// A page of the tenant's credentials, newest first, after `cursor` (as `GET /v1/jobs` pages).
    package func credentials(tenant: UUID, limit: Int, after cursor: JobCursor?) async throws -> (credentials: [CredentialRecord], next: JobCursor?) {
        let rows = try await client.query(
            """
            SELECT \(unescaped: CredentialRecord.columns) FROM credentials
            WHERE tenant_id = \(tenant)
              AND (\(cursor?.createdMicros)::bigint IS NULL
                   OR (created_at, id) < ('epoch'::timestamptz + \(cursor?.createdMicros) * interval '1 microsecond', \(cursor?.id)))
            ORDER BY created_at DESC, id DESC
            LIMIT \(limit + 1)
            """, logger: logger)
        var records: [CredentialRecord] = []
        for try await row in rows { records.append(try CredentialRecord(row: row)) }
        guard records.count > limit else { return (records, nil) }
        records.removeLast()
        return (records, records.last.map { JobCursor(createdMicros: $0.createdMicros, id: $0.id) })
    }

    /// False when the tenant has no such credential.
    package func delete(_ id: UUID, tenant: UUID) async throws -> Bool {
        let rows = try await client.query(
            "DELETE FROM credentials WHERE id = \(id) AND tenant_id = \(tenant) RETURNING id", logger: logger)
        for try await _ in rows.decode(UUID.self) { return true }
        return false
    }

    /// The credentials a job of `owner` may use on `scheme://host:port`: the tenant's permanent ones
    /// and its gateway session's own, best first (see `CredentialPreference`).
    package func candidates(for owner: EngineSessionOwner, scheme: String, host: String, port: Int) async throws -> [CredentialRecord] {
        let rows = try await client.query(
            """
            SELECT \(unescaped: CredentialRecord.columns) FROM credentials
            WHERE tenant_id = \(owner.tenantID) AND host = \(host) AND port = \(Int32(port)) AND scheme = \(scheme)
              AND (persistence = 'permanent' OR session_id = \(owner.sessionID))
            """, logger: logger)
        var records: [CredentialRecord] = []
        for try await row in rows { records.append(try CredentialRecord(row: row)) }
        return records.sorted(by: CredentialPreference.isBetter(_:than:))
    }

    /// The server-trust and client-certificate credentials a job of `owner` may use, for every host:
    /// what the owner's engine sessions fix into their TLS settings.
    package func connectionCredentials(for owner: EngineSessionOwner) async throws -> [CredentialRecord] {
        var records: [CredentialRecord] = []
        for try await record in try await client.execute(ConnectionCredentialsStatement(owner: owner), logger: logger) { records.append(record) }
        return records
    }
}
