import FerryMetrics
import FerryModel
import FerryStore
import FerryVault
import Hummingbird

/// The HTTP API's route table: every route and middleware, over the stores the composition root made.
package enum APIRouter {
    /// What the routes work with. Nothing here is made by the API: stores, files and the event feed
    /// come from `buildApplication(configuration:)` (or a test).
    package struct Dependencies: Sendable {
        package var keys: KeyStore
        package var jobs: JobStore
        package var sessions: SessionStore
        package var cookies: SessionCookieStore
        package var credentials: CredentialStore
        package var blobs: BlobStore
        package var events: JobEventStore
        /// Live job events for the Server-Sent Events routes; it must run as a service for streams to
        /// follow live events.
        package var eventFeed: JobEventFeed
        package var webhooks: WebhookStore
        package var overview: OverviewStore
        package var database: DatabaseProbe
        package var files: GatewayFiles
        /// What the routes record (the queue at each scrape), and the registry `/metrics` shows.
        package var metrics: GatewayMetrics
        package var exposition: PrometheusExposition
        /// Seals the credentials of decision answers; without it, answers with a credential are refused.
        package var decisionCredentials: DecisionCredentials?
        /// Event streams each tenant may hold open at once.
        package var eventStreams = EventStreamLimit()
        /// A span for every request (Hummingbird's `TracingMiddleware`, through the process's
        /// `InstrumentationSystem`); off unless ferryd exports traces, since the middleware costs a
        /// write per response even with no tracer behind it (see `RequestMetricsMiddleware`).
        package var tracesRequests = false

        package init(
            keys: KeyStore, jobs: JobStore, sessions: SessionStore, cookies: SessionCookieStore, credentials: CredentialStore,
            blobs: BlobStore, events: JobEventStore, eventFeed: JobEventFeed, webhooks: WebhookStore, overview: OverviewStore,
            database: DatabaseProbe, files: GatewayFiles, metrics: GatewayMetrics, exposition: PrometheusExposition,
            decisionCredentials: DecisionCredentials?
        ) {
            self.keys = keys
            self.jobs = jobs
            self.sessions = sessions
            self.cookies = cookies
            self.credentials = credentials
            self.blobs = blobs
            self.events = events
            self.eventFeed = eventFeed
            self.webhooks = webhooks
            self.overview = overview
            self.database = database
            self.files = files
            self.metrics = metrics
            self.exposition = exposition
            self.decisionCredentials = decisionCredentials
        }
    }

    package static func build(_ dependencies: Dependencies) -> Router<GatewayRequestContext> {
        let router = Router(context: GatewayRequestContext.self)
        let allowed = AllowedMethods()
        // Requests by route template, method and status, into `/metrics`' registry; outermost, so
        // it times every answer, problems included.
        router.add(middleware: RequestMetricsMiddleware(factory: dependencies.exposition.factory))
        // Outside the problem middleware, so that a span's status is the problem's. No header is
        // recorded: they carry the caller's API key.
        if dependencies.tracesRequests { router.add(middleware: TracingMiddleware()) }
        router.add(middleware: ProblemMiddleware(allowed: allowed))
        HealthRoutes(database: dependencies.database).add(to: router)
        MetricsRoutes(metrics: dependencies.metrics, exposition: dependencies.exposition, database: dependencies.database).add(to: router)
        OpenAPIRoute().add(to: router)
        ConsoleRoutes(assets: .embedded).add(to: router)

        let v1 = router.group("/v1").add(middleware: BearerAuthMiddleware(keys: dependencies.keys))
        let jobRoutes = JobRoutes(
            jobs: dependencies.jobs, sessions: dependencies.sessions, storage: dependencies.blobs, files: dependencies.files,
            urlPolicy: OutboundURLPolicy(),
            endWait: JobEndWait(jobs: dependencies.jobs, feed: dependencies.eventFeed), metrics: dependencies.metrics)
        jobRoutes.addTenantRoutes(to: v1)
        DecisionRoutes(
            jobs: dependencies.jobs, credentials: dependencies.decisionCredentials, urlPolicy: OutboundURLPolicy(),
            recentJobs: jobRoutes.recentJobs, metrics: dependencies.metrics
        ).add(to: v1)
        BlobRoutes(blobs: dependencies.blobs, files: dependencies.files).add(to: v1)
        CredentialRoutes(credentials: dependencies.credentials).add(to: v1)
        SessionRoutes(sessions: dependencies.sessions, urlPolicy: OutboundURLPolicy(), metrics: dependencies.metrics).add(to: v1)
        SessionCookieRoutes(sessions: dependencies.sessions, cookies: dependencies.cookies).add(to: v1)
        EventRoutes(store: dependencies.events, feed: dependencies.eventFeed, limit: dependencies.eventStreams, sessions: dependencies.sessions).add(to: v1)
        let webhookRoutes = WebhookRoutes(store: dependencies.webhooks, urlPolicy: OutboundURLPolicy())
        webhookRoutes.addTenantRoutes(to: v1)

        let admin = v1.group("/admin")
        TenantRoutes(keys: dependencies.keys).add(to: admin)
        OverviewRoutes(store: dependencies.overview).add(to: admin)
        jobRoutes.addAdminRoutes(to: admin)
        webhookRoutes.addAdminRoutes(to: admin)
        allowed.load(router.routes.map { ($0.path.description, $0.method.rawValue) })
        return router
    }
}
