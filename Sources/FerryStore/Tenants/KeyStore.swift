import FerryModel
import Foundation
import Logging
import PostgresNIO

/// Tenants and their API keys (`tenants`, `api_keys`).
public struct KeyStore: Sendable {
    package let client: DatabasePool
    package let logger: Logger
    package let recentCallers: CallerCache

    public init(client: DatabasePool, logger: Logger, recentCallers: CallerCache = CallerCache()) {
        self.client = client
        self.logger = logger
        self.recentCallers = recentCallers
    }

    /// The caller a key belongs to, or nil for an unknown, revoked or disabled tenant's key.
    /// Known keys are remembered for `CallerCache.lifetime`, so most requests cost no query for it.
    public func caller(for key: APIKey) async throws -> Caller? {
        let hash = key.hash
        if let caller = recentCallers.caller(for: hash) { return caller }
        guard let caller = try await lookUpCaller(hash: hash) else { return nil }
        recentCallers.remember(caller, for: hash)
        return caller
    }

    private func lookUpCaller(hash: Data) async throws -> Caller? {
        let rows = try await client.query(
            """
            SELECT k.id, k.tenant_id FROM api_keys k LEFT JOIN tenants t ON t.id = k.tenant_id
            WHERE k.key_hash = \(hash) AND k.revoked_at IS NULL AND t.disabled_at IS NULL
            """, logger: logger)
        for try await (keyID, tenantID) in rows.decode((UUID, UUID?).self) {
            if let tenantID { return .tenant(tenantID, keyID: keyID) }
            return .admin(keyID: keyID)
        }
        return nil
    }

    /// Records an admin key's hash, once (starting twice with the same key is fine).
    public func registerAdminKey(_ key: APIKey, label: String) async throws {
        try await client.query(
            """
            INSERT INTO api_keys (tenant_id, key_hash, label) VALUES (NULL, \(key.hash), \(label))
            ON CONFLICT (key_hash) DO NOTHING
            """, logger: logger)
    }

    public struct Tenant: Sendable, Equatable {
        public var id: UUID
        public var name: String
        public var maxRunningJobs: Int?
        public var maxQueuedJobs: Int?
        /// Bytes of blobs and job content the tenant may store (`StorageQuota`); nil: ferryd's default.
        public var maxStorageBytes: Int64?
        /// Days its content and unused blobs are kept (`ContentRetention`); nil: ferryd's default.
        public var contentRetentionDays: Int?
        public var createdAt: Date
        public var disabled: Bool

        package init(
            id: UUID, name: String, maxRunningJobs: Int? = nil, maxQueuedJobs: Int? = nil, maxStorageBytes: Int64? = nil,
            contentRetentionDays: Int? = nil, createdAt: Date, disabled: Bool
        ) {
            self.id = id
            self.name = name
            self.maxRunningJobs = maxRunningJobs
            self.maxQueuedJobs = maxQueuedJobs
            self.maxStorageBytes = maxStorageBytes
            self.contentRetentionDays = contentRetentionDays
            self.createdAt = createdAt
            self.disabled = disabled
        }
    }

    /// A new tenant and its first key, in one transaction.
    public func createTenant(
        name: String, maxRunningJobs: Int?, maxQueuedJobs: Int?, maxStorageBytes: Int64? = nil, contentRetentionDays: Int? = nil
    ) async throws -> (Tenant, APIKey, keyID: UUID) {
        let key = APIKey.generate()
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                INSERT INTO tenants (name, max_running_jobs, max_queued_jobs, max_storage_bytes, content_retention_days)
                VALUES (\(name), \(maxRunningJobs), \(maxQueuedJobs), \(maxStorageBytes), \(contentRetentionDays))
                RETURNING id, created_at
                """, logger: logger)
            var created: (UUID, Date)?
            for try await row in rows.decode((UUID, Date).self) { created = row }
            guard let (id, createdAt) = created else { throw StoreInvariantError("tenant not created") }
            let keyID = try await Self.insertKey(key, tenant: id, label: "initial", on: connection, logger: logger)
            let tenant = Tenant(
                id: id, name: name, maxRunningJobs: maxRunningJobs, maxQueuedJobs: maxQueuedJobs, maxStorageBytes: maxStorageBytes,
                contentRetentionDays: contentRetentionDays, createdAt: createdAt, disabled: false)
            return (tenant, key, keyID)
        }
    }

    public func tenants() async throws -> [Tenant] {
        let rows = try await client.query(
            """
            SELECT id, name, max_running_jobs, max_queued_jobs, max_storage_bytes, content_retention_days, created_at, disabled_at
            FROM tenants ORDER BY created_at, id
            """,
            logger: logger)
        var tenants: [Tenant] = []
        for try await (id, name, running, queued, storage, retention, createdAt, disabledAt) in rows.decode(
            (UUID, String, Int?, Int?, Int64?, Int?, Date, Date?).self)
        {
            tenants.append(Tenant(
                id: id, name: name, maxRunningJobs: running, maxQueuedJobs: queued, maxStorageBytes: storage,
                contentRetentionDays: retention, createdAt: createdAt, disabled: disabledAt != nil))
        }
        return tenants
    }

    /// A new key for an existing tenant; nil when there is no such tenant.
    public func createKey(tenant: UUID, label: String?) async throws -> (APIKey, keyID: UUID)? {
        let key = APIKey.generate()
        let logger = self.logger
        return try await client.withConnection { connection in
            let exists = try await connection.query("SELECT 1 FROM tenants WHERE id = \(tenant)", logger: logger)
            var found = false
            for try await _ in exists { found = true }
            guard found else { return nil }
            return (key, try await Self.insertKey(key, tenant: tenant, label: label, on: connection, logger: logger))
        }
    }

    public struct KeyInfo: Sendable, Equatable {
        public var id: UUID
        public var label: String?
        public var createdAt: Date
        public var revoked: Bool

        package init(id: UUID, label: String? = nil, createdAt: Date, revoked: Bool) {
            self.id = id
            self.label = label
            self.createdAt = createdAt
            self.revoked = revoked
        }
    }

    /// The tenant's keys, oldest first; nil when there is no such tenant.
    public func keys(of tenant: UUID) async throws -> [KeyInfo]? {
        // The tenant row joined in, so "no keys" and "no tenant" differ.
        let rows = try await client.query(
            """
            SELECT k.id, k.label, k.created_at, k.revoked_at FROM tenants t LEFT JOIN api_keys k ON k.tenant_id = t.id
            WHERE t.id = \(tenant) ORDER BY k.created_at, k.id
            """, logger: logger)
        var keys: [KeyInfo]?
        for try await (id, label, createdAt, revokedAt) in rows.decode((UUID?, String?, Date?, Date?).self) {
            var found = keys ?? []
            if let id, let createdAt { found.append(KeyInfo(id: id, label: label, createdAt: createdAt, revoked: revokedAt != nil)) }
            keys = found
        }
        return keys
    }

    /// Revokes a tenant's key; false when the tenant has no such key.
    public func revokeKey(_ keyID: UUID, tenant: UUID) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
            WHERE id = \(keyID) AND tenant_id = \(tenant) RETURNING id
            """, logger: logger)
        var revoked = false
        for try await _ in rows { revoked = true }
        // At once in this process; other ferryd processes stop accepting it within `CallerCache.lifetime`.
        if revoked { recentCallers.forgetAll() }
        return revoked
    }

    private static func insertKey(_ key: APIKey, tenant: UUID, label: String?, on connection: PostgresConnection, logger: Logger) async throws -> UUID {
        let rows = try await connection.query(
            "INSERT INTO api_keys (tenant_id, key_hash, label) VALUES (\(tenant), \(key.hash), \(label)) RETURNING id", logger: logger)
        for try await id in rows.decode(UUID.self) { return id }
        throw StoreInvariantError("key not created")
    }
}
