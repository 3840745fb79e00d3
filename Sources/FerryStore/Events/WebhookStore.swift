import FerryModel
import FerryVault
import Foundation
import Logging
import PostgresNIO

/// The webhooks' tables: the tenant's signing secret, endpoints, and deliveries with their attempts.
/// Every read and change a tenant's request makes names the tenant, so another tenant's rows are
/// simply not found. Signing secrets are sealed with the vault key before they reach SQL
/// (`SealedWebhookSecret`).
public struct WebhookStore: Sendable {
    package let client: DatabasePool
    package let keyring: VaultKeyring
    package let logger: Logger

    public init(client: DatabasePool, keyring: VaultKeyring, logger: Logger) {
        self.client = client
        self.keyring = keyring
        self.logger = logger
    }

    // MARK: - The tenant's secret

    /// The tenant's current secret, made on first use.
    ///
    /// Read first: every delivery asks, and only the first ever finds none. Two first uses at once (a
    /// tenant's first deliveries go out together): the insert that loses waits for the winner, finds
    /// the conflict and returns nothing, and its statement's snapshot, taken before the winner
    /// committed, does not see the winner's row either; the read after it has a new snapshot.
    package func secret(tenant: UUID) async throws -> Secret {
        let associatedData = SealedWebhookSecret.tenantAssociatedData(tenant)
        if let stored = try await storedSecret(tenant: tenant, associatedData: associatedData) { return stored }
        let made = try SealedWebhookSecret.seal(WebhookSignature.newSecret(), associatedData: associatedData, keyring: keyring)
        let inserted = try await client.query(
            """
            INSERT INTO webhook_secrets (tenant_id, key_id, sealed) VALUES (\(tenant), \(made.keyID), \(made.combined))
            ON CONFLICT (tenant_id) DO NOTHING RETURNING secret, key_id, sealed
            """, logger: logger)
        if let secret = try await Self.open(inserted, associatedData: associatedData, keyring: keyring) { return secret }
        if let stored = try await storedSecret(tenant: tenant, associatedData: associatedData) { return stored }
        throw GatewayError.notFound("tenant \(tenant.lowercasedString)")
    }

    private func storedSecret(tenant: UUID, associatedData: Data) async throws -> Secret? {
        let rows = try await client.query("SELECT secret, key_id, sealed FROM webhook_secrets WHERE tenant_id = \(tenant)", logger: logger)
        return try await Self.open(rows, associatedData: associatedData, keyring: keyring)
    }

    private static func open(_ rows: PostgresRowSequence, associatedData: Data, keyring: VaultKeyring) async throws -> Secret? {
        for try await (plain, keyID, sealed) in rows.decode((String?, String?, Data?).self) {
            if let secret = try SealedWebhookSecret.open(plain: plain, keyID: keyID, sealed: sealed, associatedData: associatedData, keyring: keyring) {
                return secret
            }
        }
        return nil
    }

    /// A new current secret; the previous one stays valid (and signs too) for `grace`.
    package func rotateSecret(tenant: UUID, grace: Duration) async throws -> (secret: Secret, previousValidUntil: Date) {
        let secret = WebhookSignature.newSecret()
        let made = try SealedWebhookSecret.seal(secret, associatedData: SealedWebhookSecret.tenantAssociatedData(tenant), keyring: keyring)
        // The current secret becomes the previous one as it is stored: sealed or (from before
        // sealing) plain, under the same associated data.
        let rows = try await client.query(
            """
            INSERT INTO webhook_secrets AS s (tenant_id, key_id, sealed) VALUES (\(tenant), \(made.keyID), \(made.combined))
            ON CONFLICT (tenant_id) DO UPDATE SET secret = NULL, key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed,
                previous_secret = s.secret, previous_key_id = s.key_id, previous_sealed = s.sealed,
                previous_valid_until = now() + \(grace.components.seconds) * interval '1 second', rotated_at = now()
            RETURNING coalesce(previous_valid_until, now())
            """, logger: logger)
        for try await until in rows.decode(Date.self) { return (secret, until) }
        throw GatewayError.notFound("tenant \(tenant.lowercasedString)")
    }

    /// The secrets a job callback is signed with: the current one, and the previous one while its
    /// grace period lasts.
    package func signingSecrets(tenant: UUID) async throws -> [Secret] {
        let current = try await secret(tenant: tenant)
        let rows = try await client.query(
            """
            SELECT previous_secret, previous_key_id, previous_sealed FROM webhook_secrets
            WHERE tenant_id = \(tenant) AND previous_valid_until > now()
            """, logger: logger)
        var secrets = [current]
        for try await (plain, keyID, sealed) in rows.decode((String?, String?, Data?).self) {
            if let previous = try SealedWebhookSecret.open(
                plain: plain, keyID: keyID, sealed: sealed, associatedData: SealedWebhookSecret.tenantAssociatedData(tenant), keyring: keyring)
            {
                secrets.append(previous)
            }
        }
        return secrets
    }

    // MARK: - Endpoints

    package struct Endpoint: Sendable {
        package var id: UUID
        package var url: String
        package var events: [String]
        package var createdAt: Date
        package var disabledAt: Date?
        package var disabledReason: String?
        /// Only right after creation.
        package var secret: Secret?

        package init(id: UUID, url: String, events: [String], createdAt: Date, disabledAt: Date? = nil, disabledReason: String? = nil, secret: Secret? = nil) {
            self.id = id
            self.url = url
            self.events = events
            self.createdAt = createdAt
            self.disabledAt = disabledAt
            self.disabledReason = disabledReason
            self.secret = secret
        }
    }

    private static let endpointColumns = "id, url, events, created_at, disabled_at, disabled_reason"

    private static func endpoint(_ row: PostgresRow) throws -> Endpoint {
        let (id, url, events, created, disabled, reason) = try row.decode((UUID, String, [String], Date, Date?, String?).self)
        return Endpoint(id: id, url: url, events: events, createdAt: created, disabledAt: disabled, disabledReason: reason)
    }

    package func createEndpoint(tenant: UUID, url: String, events: [String]) async throws -> Endpoint {
        let secret = WebhookSignature.newSecret()
        let id = UUID()
        let sealed = try SealedWebhookSecret.seal(secret, associatedData: SealedWebhookSecret.endpointAssociatedData(id), keyring: keyring)
        let rows = try await client.query(
            """
            INSERT INTO webhook_endpoints (id, tenant_id, url, events, secret_key_id, secret_sealed)
            VALUES (\(id), \(tenant), \(url), \(events), \(sealed.keyID), \(sealed.combined))
            RETURNING \(unescaped: Self.endpointColumns)
            """, logger: logger)
        for try await row in rows {
            var endpoint = try Self.endpoint(row)
            endpoint.secret = secret
            return endpoint
        }
        throw GatewayError.notFound("tenant \(tenant.lowercasedString)")
    }

    package func endpoints(tenant: UUID) async throws -> [Endpoint] {
        let rows = try await client.query(
            "SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints WHERE tenant_id = \(tenant) ORDER BY created_at, id",
            logger: logger)
        var endpoints: [Endpoint] = []
        for try await row in rows { endpoints.append(try Self.endpoint(row)) }
        return endpoints
    }

    /// False when the tenant has no such endpoint.
    package func deleteEndpoint(_ id: UUID, tenant: UUID) async throws -> Bool {
        let rows = try await client.query(
            "DELETE FROM webhook_endpoints WHERE id = \(id) AND tenant_id = \(tenant) RETURNING id", logger: logger)
        for try await _ in rows { return true }
        return false
    }

    // MARK: - Deliveries, as the API lists them

    package struct Delivery: Sendable {
        package var id: UUID
        package var tenantID: UUID
        package var jobID: UUID
        package var eventID: Int64
        package var eventType: String
        package var endpointID: UUID?
        package var url: String
        package var status: String
        package var nextAttemptAt: Date?
        package var createdAt: Date
        /// `createdAt` in exact microseconds since 1970, for page cursors.
        package var createdMicros: Int64
        package var deliveredAt: Date?
        package var attempts: [Attempt]

        package init(id: UUID, tenantID: UUID, jobID: UUID, eventID: Int64, eventType: String, endpointID: UUID? = nil, url: String, status: String, nextAttemptAt: Date? = nil, createdAt: Date, createdMicros: Int64, deliveredAt: Date? = nil, attempts: [Attempt]) {
            self.id = id
            self.tenantID = tenantID
            self.jobID = jobID
            self.eventID = eventID
            self.eventType = eventType
            self.endpointID = endpointID
            self.url = url
            self.status = status
            self.nextAttemptAt = nextAttemptAt
            self.createdAt = createdAt
            self.createdMicros = createdMicros
            self.deliveredAt = deliveredAt
            self.attempts = attempts
        }
    }

    package struct Attempt: Sendable, Codable {
        package var attempt: Int
        package var startedAt: Date
        package var latencyMilliseconds: Int
        package var responseStatus: Int?
        package var error: String?

        package init(attempt: Int, startedAt: Date, latencyMilliseconds: Int, responseStatus: Int? = nil, error: String? = nil) {
            self.attempt = attempt
            self.startedAt = startedAt
            self.latencyMilliseconds = latencyMilliseconds
            self.responseStatus = responseStatus
            self.error = error
        }
    }

    /// A page of the deliveries in `scope`, of one job or all, newest first, each with its attempts,
    /// after `cursor` (as `GET /v1/jobs` pages); `next` is nil on the last page.
    package func deliveries(scope: JobStore.Scope, job: UUID?, limit: Int, after cursor: JobCursor?) async throws
        -> (deliveries: [Delivery], next: JobCursor?)
    {
        var deliveries = try await readDeliveries(
            """
            WHERE (\(scope.tenantID)::uuid IS NULL OR d.tenant_id = \(scope.tenantID)) AND (\(job)::uuid IS NULL OR d.job_id = \(job))
              AND (\(cursor?.createdMicros)::bigint IS NULL
                   OR (d.created_at, d.id) < ('epoch'::timestamptz + \(cursor?.createdMicros) * interval '1 microsecond', \(cursor?.id)))
            ORDER BY d.created_at DESC, d.id DESC LIMIT \(limit + 1)
            """)
        guard deliveries.count > limit else { return (deliveries, nil) }
        deliveries.removeLast()
        return (deliveries, deliveries.last.map { JobCursor(createdMicros: $0.createdMicros, id: $0.id) })
    }

    /// Makes a delivery due again now, with a fresh retry schedule; nil when it is not in `scope`.
    package func redeliver(_ id: UUID, scope: JobStore.Scope) async throws -> Delivery? {
        let rows = try await client.query(
            """
            UPDATE webhook_deliveries d SET status = 'pending', failures = 0, next_attempt_at = now(), delivered_at = NULL
            WHERE d.id = \(id) AND (\(scope.tenantID)::uuid IS NULL OR d.tenant_id = \(scope.tenantID))
              AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.disabled_at IS NOT NULL)
            RETURNING d.id
            """, logger: logger)
        var updated = false
        for try await _ in rows { updated = true }
        guard updated else {
            guard try await readDeliveries("WHERE d.id = \(id) AND (\(scope.tenantID)::uuid IS NULL OR d.tenant_id = \(scope.tenantID))").isEmpty
            else { throw GatewayError(.conflict, code: "endpoint_disabled", "the delivery's endpoint was disabled (it answered 410 Gone); register it again") }
            return nil
        }
        return try await readDeliveries("WHERE d.id = \(id)").first
    }

    private func readDeliveries(_ condition: PostgresQuery) async throws -> [Delivery] {
        var query: PostgresQuery = """
            SELECT d.id, d.tenant_id, d.job_id, d.event_id, d.event_type, d.endpoint_id, d.url, d.status, d.next_attempt_at,
                   d.created_at, (extract(epoch FROM d.created_at) * 1000000)::bigint, d.delivered_at,
                   coalesce((SELECT json_agg(json_build_object(
                       'attempt', a.attempt, 'started_at', extract(epoch FROM a.started_at), 'latency_ms', a.latency_ms,
                       'response_status', a.response_status, 'error', a.error) ORDER BY a.attempt)
                     FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]')::text
            FROM webhook_deliveries d
            """
        query.sql += " " + condition.sql
        query.binds = condition.binds
        let rows = try await client.query(query, logger: logger)
        var deliveries: [Delivery] = []
        for try await row in rows {
            let (id, tenant, job, event, type, endpoint, url, status, next, created, createdMicros, delivered, attemptsJSON) = try row.decode(
                (UUID, UUID, UUID, Int64, String, UUID?, String, String, Date?, Date, Int64, Date?, String).self)
            deliveries.append(Delivery(
                id: id, tenantID: tenant, jobID: job, eventID: event, eventType: type, endpointID: endpoint, url: url, status: status,
                nextAttemptAt: next, createdAt: created, createdMicros: createdMicros, deliveredAt: delivered,
                attempts: try Self.attempts(attemptsJSON)))
        }
        return deliveries
    }

    private static func attempts(_ json: String) throws -> [Attempt] {
        struct Stored: Decodable {
            var attempt: Int
            var started_at: Double
            var latency_ms: Int
            var response_status: Int?
            var error: String?
        }
        return try JSONDecoder().decode([Stored].self, from: Data(json.utf8)).map {
            Attempt(attempt: $0.attempt, startedAt: Date(timeIntervalSince1970: $0.started_at), latencyMilliseconds: $0.latency_ms,
                    responseStatus: $0.response_status, error: $0.error)
        }
    }
}
