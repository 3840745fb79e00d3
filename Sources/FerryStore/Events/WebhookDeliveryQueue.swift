import FerryModel
import FerryVault
import Foundation
import Logging
import PostgresNIO

/// The dispatchers' side of `webhook_deliveries`: claiming due deliveries (`FOR UPDATE SKIP LOCKED`,
/// so dispatchers in any number of ferryd processes share them) and writing each attempt's outcome.
package struct WebhookDeliveryQueue: Sendable {
    package let client: DatabasePool
    /// Opens endpoints' sealed signing secrets (`SealedWebhookSecret`).
    package let keyring: VaultKeyring
    package let logger: Logger

    /// A claimed delivery with everything its request needs.
    package struct Due: Sendable {
        package var id: UUID
        package var tenantID: UUID
        package var eventID: Int64
        package var eventType: String
        package var eventTime: Date
        package var url: String
        /// Nil for a job callback, which is signed with the tenant's secrets.
        package var endpointID: UUID?
        package var endpointSecret: Secret?
        package var failures: Int
        /// This attempt's number (1 for the first).
        package var attempt: Int
        /// The job as the event recorded it.
        package var job: JobRecord
        /// A `job.part` event's part (LC-10); nil for every other event.
        package var part: JobPartView?

        package init(id: UUID, tenantID: UUID, eventID: Int64, eventType: String, eventTime: Date, url: String, endpointID: UUID? = nil, endpointSecret: Secret? = nil, failures: Int, attempt: Int, job: JobRecord) {
            self.id = id
            self.tenantID = tenantID
            self.eventID = eventID
            self.eventType = eventType
            self.eventTime = eventTime
            self.url = url
            self.endpointID = endpointID
            self.endpointSecret = endpointSecret
            self.failures = failures
            self.attempt = attempt
            self.job = job
        }
    }

    /// Claims up to `limit` due deliveries; each stays claimed for `leaseSeconds` (longer than an
    /// attempt may take), after which another dispatcher may take it if this one died. Due
    /// deliveries of a disabled endpoint fail without a request: a job event that raced the 410
    /// (its statement started before the endpoint was disabled) may have queued one.
    package func claim(limit: Int, leaseSeconds: Int) async throws -> [Due] {
        let rows = try await client.query(
            """
            WITH due AS (
                SELECT d.id FROM webhook_deliveries d
                WHERE d.status = 'pending' AND d.next_attempt_at <= now()
                  AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.disabled_at IS NOT NULL)
                ORDER BY d.next_attempt_at LIMIT \(limit)
                FOR UPDATE OF d SKIP LOCKED
            ), abandoned AS (
                UPDATE webhook_deliveries d SET status = 'failed', next_attempt_at = NULL
                FROM webhook_endpoints e
                WHERE e.id = d.endpoint_id AND e.disabled_at IS NOT NULL AND d.status = 'pending' AND d.next_attempt_at <= now()
            ), claimed AS (
                UPDATE webhook_deliveries d SET next_attempt_at = now() + \(leaseSeconds) * interval '1 second'
                FROM due WHERE d.id = due.id
                RETURNING d.*
            )
            SELECT \(unescaped: JobRecord.columns), delivery_id, delivery_tenant, event_id, event_type, event_time, delivery_url,
                   endpoint_id, endpoint_secret, endpoint_key_id, endpoint_sealed, failures, attempts, event_part
            FROM (
                SELECT c.id AS delivery_id, c.tenant_id AS delivery_tenant, c.event_id, c.event_type, e.created_at AS event_time,
                       c.url AS delivery_url, c.endpoint_id, p.secret AS endpoint_secret,
                       p.secret_key_id AS endpoint_key_id, p.secret_sealed AS endpoint_sealed, c.failures,
                       (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = c.id)::bigint AS attempts,
                       e.part::text AS event_part,
                       \(unescaped: JobEventStore.jobColumns(of: "e"))
                FROM claimed c JOIN job_events e ON e.id = c.event_id LEFT JOIN webhook_endpoints p ON p.id = c.endpoint_id
            ) AS jobs
            """, logger: logger)
        var claimed: [Due] = []
        for try await row in rows {
            let columns = row.makeRandomAccess()
            let base = JobRecord.columnCount
            let endpointID = try columns[base + 6].decode(UUID?.self)
            let endpointSecret = try endpointID.flatMap { id in
                try SealedWebhookSecret.open(
                    plain: try columns[base + 7].decode(String?.self), keyID: try columns[base + 8].decode(String?.self),
                    sealed: try columns[base + 9].decode(Data?.self), associatedData: SealedWebhookSecret.endpointAssociatedData(id),
                    keyring: keyring)
            }
            var due = Due(
                id: try columns[base].decode(UUID.self), tenantID: try columns[base + 1].decode(UUID.self), eventID: try columns[base + 2].decode(Int64.self),
                eventType: try columns[base + 3].decode(String.self), eventTime: try columns[base + 4].decode(Date.self),
                url: try columns[base + 5].decode(String.self), endpointID: endpointID,
                endpointSecret: endpointSecret, failures: try columns[base + 10].decode(Int.self),
                attempt: Int(try columns[base + 11].decode(Int64.self)) + 1, job: try JobRecord(row: row))
            due.part = try columns[base + 12].decode(String?.self).map { try JobSpecification.decode(JobPartView.self, json: $0) }
            claimed.append(due)
        }
        return claimed
    }

    /// What one attempt found out.
    package struct Outcome: Sendable {
        package var startedAt: Date
        package var latencyMilliseconds: Int
        package var responseStatus: Int?
        package var error: String?
        /// What happens to the delivery now.
        package var next: Next

        package init(startedAt: Date, latencyMilliseconds: Int, responseStatus: Int? = nil, error: String? = nil, next: Next) {
            self.startedAt = startedAt
            self.latencyMilliseconds = latencyMilliseconds
            self.responseStatus = responseStatus
            self.error = error
            self.next = next
        }
    }

    package enum Next: Sendable, Equatable {
        case delivered
        case retry(after: Duration)
        /// The schedule ran out, or the receiver said 410 Gone (`disablesEndpoint`).
        case failed(disablesEndpoint: Bool)
    }

    /// Writes the attempt and the delivery's new state in one statement; a 410 also disables the
    /// endpoint and fails its other pending deliveries.
    package func record(_ due: Due, _ outcome: Outcome) async throws {
        let status: String
        var delayMicros: Int64 = 0
        var disables = false
        switch outcome.next {
        case .delivered: status = "delivered"
        case .retry(let delay):
            status = "pending"
            delayMicros = delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000
        case .failed(let disablesEndpoint):
            status = "failed"
            disables = disablesEndpoint && due.endpointID != nil
        }
        let failures = outcome.next == .delivered ? due.failures : due.failures + 1
        try await client.query(
            """
            WITH attempt AS (
                INSERT INTO webhook_attempts (delivery_id, attempt, started_at, latency_ms, response_status, error)
                VALUES (\(due.id), \(due.attempt), \(outcome.startedAt), \(outcome.latencyMilliseconds), \(outcome.responseStatus), \(outcome.error))
                ON CONFLICT (delivery_id, attempt) DO NOTHING
            ), disabled AS (
                UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = 'the receiver answered 410 Gone'
                WHERE \(disables) AND id = \(due.endpointID)
            ), others AS (
                UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL
                WHERE \(disables) AND endpoint_id = \(due.endpointID) AND status = 'pending' AND id <> \(due.id)
            )
            UPDATE webhook_deliveries SET status = \(status), failures = \(failures),
                next_attempt_at = CASE WHEN \(status) = 'pending' THEN now() + \(delayMicros) * interval '1 microsecond' END,
                delivered_at = CASE WHEN \(status) = 'delivered' THEN now() END
            WHERE id = \(due.id)
            """, logger: logger)
    }

    package init(client: DatabasePool, keyring: VaultKeyring, logger: Logger) {
        self.client = client
        self.keyring = keyring
        self.logger = logger
    }
}
