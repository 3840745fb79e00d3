import FerryModel
import FerryVault
import Foundation
import Logging
import PostgresNIO

/// Seals every secret stored outside `credentials` under the keyring's current key: values stored
/// plain (before migration 0013) and values sealed under an older key. `PlainSecretsSealing` runs it
/// at start, `VaultRotation` (`ferryd admin rotate-vault-key`) every time.
///
/// As `VaultRotation` does for credentials: page by page, each row its own statement, written only if
/// the row still holds what was read (a worker's heartbeat may have stored new resume data
/// meanwhile, sealed under the current key already); safe next to running ferryd and to run again.
/// A value no configured key opens is left as it is and reported by its row, never by content.
package enum SecretsResealing {
    /// What one kind of row came to.
    package struct Tally: Sendable, Equatable {
        package var resealed = 0
        /// The rows (an id, or a cookie's session and name) with a value no configured key opens.
        package var unopenable: [String] = []

        package init(resealed: Int = 0, unopenable: [String] = []) {
            self.resealed = resealed
            self.unopenable = unopenable
        }
    }

    /// The kinds of row, in the order they are done and reported.
    package enum Kind: String, Sendable, CaseIterable {
        case webhookSecrets = "tenant webhook secret(s)"
        case webhookEndpoints = "webhook endpoint secret(s)"
        case sessions = "session configuration(s)"
        case cookies = "session cookie(s)"
        case jobs = "job(s) (request headers, resume data)"
        case jobEvents = "job event(s) (request headers)"
    }

    package static let batchSize = 500

    package static func run(on connection: PostgresConnection, keyring: VaultKeyring, logger: Logger) async throws -> [Kind: Tally] {
        var tallies: [Kind: Tally] = [:]
        for kind in Kind.allCases {
            let context = Context(connection: connection, keyring: keyring, logger: logger)
            tallies[kind] = switch kind {
            case .webhookSecrets: try await context.webhookSecrets()
            case .webhookEndpoints: try await context.webhookEndpoints()
            case .sessions: try await context.sessions()
            case .cookies: try await context.cookies()
            case .jobs: try await context.jobs()
            case .jobEvents: try await context.jobEvents()
            }
        }
        return tallies
    }

    /// The lower-case names of credential-bearing headers, for the statements that find plain ones.
    static var credentialHeaderNames: [String] { JobView.sensitiveHeaders.sorted() }

    /// SQL: whether the header list `list` (a jsonb expression) has a credential-bearing header not
    /// sealed under `current`. Literals, not binds: the names are ours and a key id is hex digits.
    static func headersNeedSealing(_ list: String, current: String) -> String {
        precondition(current.allSatisfy(\.isHexDigit))
        let names = credentialHeaderNames.map { "'\($0)'" }.joined(separator: ", ")
        return """
            EXISTS (SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(\(list)) WHEN 'array' THEN \(list) ELSE '[]'::jsonb END) h
                    WHERE lower(h->>'name') IN (\(names)) AND (h->'sealed' IS NULL OR h->'sealed'->>'key_id' <> '\(current)'))
            """
    }

    private struct Context {
        let connection: PostgresConnection
        let keyring: VaultKeyring
        let logger: Logger
        var current: String { keyring.currentKeyID }

        func unopenable(_ kind: String, _ row: String, _ error: any Error) {
            logger.warning("a sealed value does not open with any configured vault key; left as it is",
                           metadata: ["kind": "\(kind)", "row": "\(row)", "reason": "\(error)"])
        }

        func webhookSecrets() async throws -> Tally {
            var tally = Tally()
            var after = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            while true {
                let rows = try await connection.query(
                    """
                    SELECT tenant_id, secret, key_id, sealed, previous_secret, previous_key_id, previous_sealed FROM webhook_secrets
                    WHERE tenant_id > \(after) AND (secret IS NOT NULL OR previous_secret IS NOT NULL
                          OR key_id <> \(current) OR previous_key_id <> \(current))
                    ORDER BY tenant_id LIMIT \(batchSize)
                    """, logger: logger)
                var batch: [(UUID, String?, String?, Data?, String?, String?, Data?)] = []
                for try await row in rows.decode((UUID, String?, String?, Data?, String?, String?, Data?).self) { batch.append(row) }
                guard let last = batch.last else { return tally }
                after = last.0
                for (tenant, plain, keyID, sealed, previousPlain, previousKeyID, previousSealed) in batch {
                    let associatedData = SealedWebhookSecret.tenantAssociatedData(tenant)
                    let current: SealedSecret?
                    let previous: SealedSecret?
                    do {
                        current = try resealed(plain: plain, keyID: keyID, sealed: sealed, associatedData: associatedData)
                        previous = try resealed(plain: previousPlain, keyID: previousKeyID, sealed: previousSealed, associatedData: associatedData)
                    } catch {
                        unopenable("tenant webhook secret", tenant.lowercasedString, error)
                        tally.unopenable.append(tenant.lowercasedString)
                        continue
                    }
                    let updated = try await connection.query(
                        """
                        UPDATE webhook_secrets SET secret = NULL, key_id = \(current?.keyID), sealed = \(current?.combined),
                            previous_secret = NULL, previous_key_id = \(previous?.keyID), previous_sealed = \(previous?.combined)
                        WHERE tenant_id = \(tenant) AND secret IS NOT DISTINCT FROM \(plain) AND sealed IS NOT DISTINCT FROM \(sealed)
                          AND previous_secret IS NOT DISTINCT FROM \(previousPlain) AND previous_sealed IS NOT DISTINCT FROM \(previousSealed)
                        RETURNING 1
                        """, logger: logger)
                    for try await _ in updated { tally.resealed += 1 }
                }
            }
        }

        /// A secret column pair (or plain column) sealed under the current key; nil when it holds nothing.
        func resealed(plain: String?, keyID: String?, sealed: Data?, associatedData: Data) throws -> SealedSecret? {
            if let keyID, let sealed {
                return try keyring.resealed(SealedSecret(keyID: keyID, combined: sealed), associatedData: associatedData)
            }
            return try plain.map { try keyring.seal(Data($0.utf8), associatedData: associatedData) }
        }

        func webhookEndpoints() async throws -> Tally {
            var tally = Tally()
            var after = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            while true {
                let rows = try await connection.query(
                    """
                    SELECT id, secret, secret_key_id, secret_sealed FROM webhook_endpoints
                    WHERE id > \(after) AND (secret IS NOT NULL OR secret_key_id <> \(current))
                    ORDER BY id LIMIT \(batchSize)
                    """, logger: logger)
                var batch: [(UUID, String?, String?, Data?)] = []
                for try await row in rows.decode((UUID, String?, String?, Data?).self) { batch.append(row) }
                guard let last = batch.last else { return tally }
                after = last.0
                for (id, plain, keyID, sealed) in batch {
                    let value: SealedSecret?
                    do {
                        value = try resealed(plain: plain, keyID: keyID, sealed: sealed, associatedData: SealedWebhookSecret.endpointAssociatedData(id))
                    } catch {
                        unopenable("webhook endpoint secret", id.lowercasedString, error)
                        tally.unopenable.append(id.lowercasedString)
                        continue
                    }
                    guard let value else { continue }
                    let updated = try await connection.query(
                        """
                        UPDATE webhook_endpoints SET secret = NULL, secret_key_id = \(value.keyID), secret_sealed = \(value.combined)
                        WHERE id = \(id) AND secret IS NOT DISTINCT FROM \(plain) AND secret_sealed IS NOT DISTINCT FROM \(sealed)
                        RETURNING 1
                        """, logger: logger)
                    for try await _ in updated { tally.resealed += 1 }
                }
            }
        }

        func cookies() async throws -> Tally {
            var tally = Tally()
            // Keyed by (session, name, domain, path): paged by that key.
            var after = (UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), "", "", "")
            while true {
                let rows = try await connection.query(
                    """
                    SELECT session_id, name, domain, path, value, value_key_id, value_sealed FROM session_cookies
                    WHERE (session_id, name, domain, path) > (\(after.0), \(after.1), \(after.2), \(after.3))
                      AND (value IS NOT NULL OR value_key_id <> \(current))
                    ORDER BY session_id, name, domain, path LIMIT \(batchSize)
                    """, logger: logger)
                var batch: [(UUID, String, String, String, String?, String?, Data?)] = []
                for try await row in rows.decode((UUID, String, String, String, String?, String?, Data?).self) { batch.append(row) }
                guard let last = batch.last else { return tally }
                after = (last.0, last.1, last.2, last.3)
                for (session, name, domain, path, plain, keyID, sealed) in batch {
                    let associatedData = SealedCookieValue.associatedData(session: session, name: name, domain: domain, path: path)
                    let value: SealedSecret?
                    do {
                        value = try resealed(plain: plain, keyID: keyID, sealed: sealed, associatedData: associatedData)
                    } catch {
                        unopenable("session cookie", session.lowercasedString, error)
                        tally.unopenable.append("\(session.lowercasedString) (cookie \(name))")
                        continue
                    }
                    guard let value else { continue }
                    let updated = try await connection.query(
                        """
                        UPDATE session_cookies SET value = NULL, value_key_id = \(value.keyID), value_sealed = \(value.combined)
                        WHERE session_id = \(session) AND name = \(name) AND domain = \(domain) AND path = \(path)
                          AND value IS NOT DISTINCT FROM \(plain) AND value_sealed IS NOT DISTINCT FROM \(sealed)
                        RETURNING 1
                        """, logger: logger)
                    for try await _ in updated { tally.resealed += 1 }
                }
            }
        }

        func sessions() async throws -> Tally {
            var tally = Tally()
            var after = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            while true {
                let query: PostgresQuery = """
                    SELECT id, configuration::text FROM sessions
                    WHERE id > \(after) AND (\(unescaped: headersNeedSealing("configuration->'additional_headers'", current: current))
                       OR (configuration ? 'proxy_sealed' AND configuration->'proxy_sealed'->>'key_id' <> \(current))
                       OR (NOT configuration ? 'proxy_sealed' AND configuration->>'proxy' LIKE '%@%'))
                    ORDER BY id LIMIT \(batchSize)
                    """
                var batch: [(UUID, String)] = []
                for try await row in try await connection.query(query, logger: logger).decode((UUID, String).self) { batch.append(row) }
                guard let last = batch.last else { return tally }
                after = last.0
                for (id, stored) in batch {
                    let resealed: String?
                    do {
                        resealed = try SealedSessionConfiguration.resealed(stored, session: id, keyring: keyring)
                    } catch {
                        unopenable("session configuration", id.lowercasedString, error)
                        tally.unopenable.append(id.lowercasedString)
                        continue
                    }
                    guard let resealed else { continue }
                    let updated = try await connection.query(
                        """
                        UPDATE sessions SET configuration = \(resealed)::jsonb WHERE id = \(id) AND configuration = \(stored)::jsonb RETURNING 1
                        """, logger: logger)
                    for try await _ in updated { tally.resealed += 1 }
                }
            }
        }

        func jobs() async throws -> Tally {
            var tally = Tally()
            var after = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            while true {
                let query: PostgresQuery = """
                    SELECT id, request::text, resume_data::text FROM jobs
                    WHERE id > \(after) AND (\(unescaped: headersNeedSealing("request->'headers'", current: current))
                       OR (resume_data IS NOT NULL AND (NOT resume_data ? 'sealed' OR resume_data->'sealed'->>'key_id' <> \(current))))
                    ORDER BY id LIMIT \(batchSize)
                    """
                var batch: [(UUID, String, String?)] = []
                for try await row in try await connection.query(query, logger: logger).decode((UUID, String, String?).self) { batch.append(row) }
                guard let last = batch.last else { return tally }
                after = last.0
                for (id, request, resumeData) in batch {
                    let newRequest: String?
                    let newResumeData: String?
                    do {
                        newRequest = try SealedJobRequest.resealed(request, job: id, keyring: keyring)
                        newResumeData = try resumeData.flatMap { try SealedResumeData.resealed($0, job: id, keyring: keyring) }
                    } catch {
                        unopenable("job", id.lowercasedString, error)
                        tally.unopenable.append(id.lowercasedString)
                        continue
                    }
                    guard newRequest != nil || newResumeData != nil else { continue }
                    // Each column only if it changed, and only if it still holds what was read.
                    let updated = try await connection.query(
                        """
                        UPDATE jobs SET request = coalesce(\(newRequest)::jsonb, request), resume_data = coalesce(\(newResumeData)::jsonb, resume_data)
                        WHERE id = \(id) AND request = \(request)::jsonb AND resume_data IS NOT DISTINCT FROM \(resumeData)::jsonb
                        RETURNING 1
                        """, logger: logger)
                    for try await _ in updated { tally.resealed += 1 }
                }
            }
        }

        func jobEvents() async throws -> Tally {
            var tally = Tally()
            var after: Int64 = 0
            while true {
                let query: PostgresQuery = """
                    SELECT id, job_id, ((job).request)::text FROM job_events
                    WHERE id > \(after) AND \(unescaped: headersNeedSealing("(job).request->'headers'", current: current))
                    ORDER BY id LIMIT \(batchSize)
                    """
                var batch: [(Int64, UUID, String)] = []
                for try await row in try await connection.query(query, logger: logger).decode((Int64, UUID, String).self) { batch.append(row) }
                guard let last = batch.last else { return tally }
                after = last.0
                for (id, job, request) in batch {
                    let resealed: String?
                    do {
                        resealed = try SealedJobRequest.resealed(request, job: job, keyring: keyring)
                    } catch {
                        unopenable("job event", String(id), error)
                        tally.unopenable.append("event \(id) of job \(job.lowercasedString)")
                        continue
                    }
                    guard let resealed else { continue }
                    let updated = try await connection.query(
                        """
                        UPDATE job_events SET job.request = \(resealed)::jsonb
                        WHERE id = \(id) AND (job).request = \(request)::jsonb RETURNING 1
                        """, logger: logger)
                    for try await _ in updated { tally.resealed += 1 }
                }
            }
        }
    }
}
