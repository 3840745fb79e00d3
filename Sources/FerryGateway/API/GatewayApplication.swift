import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// The gateway's composition root: the router with every route and middleware, over the stores.
public enum GatewayApplication {
    public struct Dependencies: Sendable {
        public var client: PostgresClient
        public var files: GatewayFiles
        public var metrics: GatewayMetrics
        public var logger: Logger
        /// Job events for the Server-Sent Events routes; it must run as a service of the application
        /// for streams to follow live events.
        public var events: JobEventFeed
        /// Seals and opens the credential vault's secrets.
        public var vault: VaultKeyring

        /// Seals the credentials of decision answers; without it, answers with a credential are refused.
        public var decisionCredentials: DecisionCredentials?

        public init(
            client: PostgresClient, files: GatewayFiles, metrics: GatewayMetrics, logger: Logger, vault: VaultKeyring,
            events: JobEventFeed? = nil, decisionCredentials: DecisionCredentials? = nil
        ) {
            self.client = client
            self.vault = vault
            self.decisionCredentials = decisionCredentials
            self.files = files
            self.metrics = metrics
            self.logger = logger
            self.events = events ?? JobEventFeed(client: client, logger: logger)
        }
    }

    public static func buildRouter(_ dependencies: Dependencies) -> Router<GatewayRequestContext> {
        let logger = dependencies.logger
        let keys = KeyStore(client: dependencies.client, logger: logger)
        let jobs = JobStore(client: dependencies.client, logger: logger)
        let router = Router(context: GatewayRequestContext.self)
        router.add(middleware: LatencyMiddleware(metrics: dependencies.metrics))
        router.add(middleware: ProblemMiddleware())
        HealthRoutes(client: dependencies.client, logger: logger).add(to: router)
        MetricsRoutes(metrics: dependencies.metrics, client: dependencies.client, logger: logger).add(to: router)
        OpenAPIRoute().add(to: router)

        let v1 = router.group("/v1").add(middleware: BearerAuthMiddleware(keys: keys))
        let jobRoutes = JobRoutes(jobs: jobs, files: dependencies.files, urlPolicy: OutboundURLPolicy())
        jobRoutes.addTenantRoutes(to: v1)
        DecisionRoutes(
            jobs: jobs, credentials: dependencies.decisionCredentials, urlPolicy: OutboundURLPolicy(), recentJobs: jobRoutes.recentJobs
        ).add(to: v1)
        BlobRoutes(client: dependencies.client, files: dependencies.files, logger: logger).add(to: v1)
        CredentialRoutes(credentials: CredentialStore(client: dependencies.client, keyring: dependencies.vault, logger: logger)).add(to: v1)
        let sessions = SessionStore(client: dependencies.client, logger: logger)
        SessionRoutes(sessions: sessions).add(to: v1)
        SessionCookieRoutes(sessions: sessions, cookies: SessionCookieStore(client: dependencies.client, logger: logger)).add(to: v1)
        EventRoutes(store: JobEventStore(client: dependencies.client, logger: logger), feed: dependencies.events).add(to: v1)
        let webhookRoutes = WebhookRoutes(store: WebhookStore(client: dependencies.client, logger: logger), urlPolicy: OutboundURLPolicy())
        webhookRoutes.addTenantRoutes(to: v1)

        let admin = v1.group("/admin")
        TenantRoutes(keys: keys).add(to: admin)
        jobRoutes.addAdminRoutes(to: admin)
        webhookRoutes.addAdminRoutes(to: admin)
        return router
    }
}
