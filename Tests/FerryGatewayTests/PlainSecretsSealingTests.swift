@testable import FerryGateway
@testable import FerryModel
@testable import FerryStore
@testable import FerryVault
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import Testing

/// Secrets a database held in plain text before migration 0013 are sealed by the next ferryd to
/// start, before it serves (issue 18): they still work (the API shows the tenant's webhook secret
/// and cookies, a worker's claim opens the job's header, its resume data and its session's proxy
/// password), and the tables hold none of them any more.
@Suite("Plain secrets sealed at start", .timeLimit(.minutes(4)))
struct PlainSecretsSealingTests {
    let logger: Logger = {
        var logger = Logger(label: "ferry.tests.plain-secrets")
        logger.logLevel = .warning
        return logger
    }()

    static let legacySecret = "whsec_bGVnYWN5LXRlbmFudC1zZWNyZXQtMTIzNDU2"
    static let legacyEndpointSecret = "whsec_bGVnYWN5LWVuZHBvaW50LXNlY3JldC0xMjM0"
    static let legacyToken = "legacy-job-token-5e1f"
    static let legacySessionToken = "legacy-session-token-77aa"
    static let legacyProxyPassword = "legacy-proxy-pass-09c3"
    static let legacyCookie = "legacy-cookie-value-d41d"
    static let legacyResumeToken = "legacy-resume-token-3b2a"

    @Test("start-up seals the webhook secrets, cookie values, job and session headers, proxy password and resume data left plain, and they keep working")
    func sealsLeftoversAtStart() async throws {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withNew { dataDirectory in
                let adminKey = "ferry_test_admin_" + UUID().uuidString.lowercased()
                let keyText = VaultKey.generateText()
                let configuration = GatewayConfiguration(
                    databaseURL: try DatabaseURL(parsing: database.url), dataDirectory: dataDirectory, adminKey: Secret(adminKey),
                    workers: 0, vaultKeySource: .keys([Secret(keyText)]))
                let keyring = try VaultKeyring(keys: [try VaultKey(base64: keyText)])

                // A database as an earlier ferryd left it: migrated, with plain secrets in it.
                let first = try await buildApplication(configuration: configuration, logger: logger)
                let tenant = try await first.test(.router) { client in
                    let created = try await client.execute(
                        uri: "/v1/admin/tenants", method: .post, headers: [.authorization: "Bearer \(adminKey)", .contentType: "application/json"],
                        body: ByteBuffer(string: #"{"name": "legacy"}"#))
                    let tenantJSON = try JSONSerialization.jsonObject(with: Data(created.body.readableBytesView)) as? [String: Any]
                    return try #require(tenantJSON?["id"] as? String)
                }
                let session = UUID().uuidString.lowercased()
                let job = UUID().uuidString.lowercased()
                let legacyResume = #"{"partial_file":"/nowhere/partial","headers":{"Authorization":"Bearer \#(Self.legacyResumeToken)"}}"#
                try await database.withConnection { connection in
                    for statement: PostgresQuery in [
                        "INSERT INTO webhook_secrets (tenant_id, secret) VALUES (\(tenant)::uuid, \(Self.legacySecret))",
                        """
                        INSERT INTO webhook_endpoints (tenant_id, url, events, secret)
                        VALUES (\(tenant)::uuid, 'http://127.0.0.1:9/hook', ARRAY['job.succeeded'], \(Self.legacyEndpointSecret))
                        """,
                        """
                        INSERT INTO sessions (id, tenant_id, kind, configuration) VALUES (\(session)::uuid, \(tenant)::uuid, 'default',
                            jsonb_build_object('additional_headers', jsonb_build_array(jsonb_build_object('name', 'Authorization', 'value', \(Self.legacySessionToken)::text)),
                                               'proxy', \("http://scout:\(Self.legacyProxyPassword)@127.0.0.1:3128")::text))
                        """,
                        """
                        INSERT INTO session_cookies (tenant_id, session_id, name, value, domain, path, secure, http_only, host_only, created_at)
                        VALUES (\(tenant)::uuid, \(session)::uuid, 'sid', \(Self.legacyCookie), '127.0.0.1', '/', false, false, true, now())
                        """,
                        """
                        INSERT INTO jobs (id, tenant_id, session_id, kind, request, policies, max_attempts, resume_data)
                        VALUES (\(job)::uuid, \(tenant)::uuid, \(session)::uuid, 'download',
                                jsonb_build_object('url', 'http://127.0.0.1:9/file', 'method', 'GET', 'headers',
                                    jsonb_build_array(jsonb_build_object('name', 'Authorization', 'value', \("Bearer \(Self.legacyToken)")::text))),
                                '{"follow_redirects": true, "max_redirects": 10}'::jsonb, 1, \(legacyResume)::jsonb)
                        """,
                        "UPDATE vault_sealing SET plain_values_sealed_at = NULL",
                    ] {
                        try await connection.query(statement, logger: logger)
                    }
                }

                // The next start seals them before serving; the API and a worker's claim still get them.
                let second = try await buildApplication(configuration: configuration, logger: logger)
                try await second.test(.router) { client in
                    let key = try await Self.tenantKey(client, adminKey: adminKey, tenant: tenant)
                    let secret = try await client.execute(uri: "/v1/webhooks/secret", method: .get, headers: [.authorization: "Bearer \(key)"])
                    #expect(String(buffer: secret.body).contains(Self.legacySecret), "the tenant's secret is the one it had")
                    let cookies = try await client.execute(uri: "/v1/sessions/\(session)/cookies", method: .get, headers: [.authorization: "Bearer \(key)"])
                    #expect(String(buffer: cookies.body).contains(Self.legacyCookie))
                    let view = try await client.execute(uri: "/v1/sessions/\(session)", method: .get, headers: [.authorization: "Bearer \(key)"])
                    let viewText = String(buffer: view.body)
                    #expect(!viewText.contains(Self.legacyProxyPassword) && !viewText.contains(Self.legacySessionToken), "\(viewText)")
                }

                try await database.withConnection { connection in
                    let everything = try await PostgresProbe.value(
                        """
                        SELECT concat_ws(' ', (SELECT string_agg(t::text, ' ') FROM webhook_secrets t), (SELECT string_agg(t::text, ' ') FROM webhook_endpoints t),
                            (SELECT string_agg(t::text, ' ') FROM sessions t), (SELECT string_agg(t::text, ' ') FROM session_cookies t),
                            (SELECT string_agg(t::text, ' ') FROM jobs t), (SELECT string_agg(t::text, ' ') FROM job_events t))
                        """, as: String.self, on: connection) ?? ""
                    for plain in [Self.legacySecret, Self.legacyEndpointSecret, Self.legacyToken, Self.legacySessionToken, Self.legacyProxyPassword,
                                  Self.legacyCookie, Self.legacyResumeToken] {
                        #expect(!everything.contains(plain), "\(plain) is sealed")
                    }
                    let done = try await PostgresProbe.value("SELECT plain_values_sealed_at IS NOT NULL FROM vault_sealing", as: Bool.self, on: connection)
                    #expect(done == true)
                }

                // A worker's claim opens them all.
                let client = DatabasePool(
                    clientConfiguration: database.clientConfiguration, probeConfiguration: database.connectionConfiguration, logger: logger)
                try await withThrowingDiscardingTaskGroup { group in
                    group.addTask { try await client.run() }
                    defer { group.cancelAll() }
                    let claims = try await JobQueue(client: client, keyring: keyring, logger: logger).claim(owner: "test", limit: 1, leaseSeconds: 60)
                    let claim = try #require(claims.first)
                    #expect(claim.unopenableSecret == nil)
                    #expect(claim.job.request.headers == [JobSpecification.Header(name: "Authorization", value: "Bearer \(Self.legacyToken)")])
                    let resumeData = claim.job.resumeData ?? ""
                    #expect(resumeData.contains(Self.legacyResumeToken) && resumeData.contains("/nowhere/partial"), "\(resumeData)")
                    #expect(claim.session?.additionalHeaders.first?.value == Self.legacySessionToken)
                    #expect(claim.session?.proxy == "http://scout:\(Self.legacyProxyPassword)@127.0.0.1:3128")
                }
            }
        }
    }

    static func tenantKey(_ client: any TestClientProtocol, adminKey: String, tenant: String) async throws -> String {
        let reply = try await client.execute(
            uri: "/v1/admin/tenants/\(tenant)/keys", method: .post, headers: [.authorization: "Bearer \(adminKey)", .contentType: "application/json"],
            body: ByteBuffer(string: "{}"))
        let json = try JSONSerialization.jsonObject(with: Data(reply.body.readableBytesView)) as? [String: Any]
        return try #require(json?["api_key"] as? String, "\(String(buffer: reply.body))")
    }
}
