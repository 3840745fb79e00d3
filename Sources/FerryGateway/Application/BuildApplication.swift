import FerryAPI
import FerryMetrics
import FerryModel
import FerryRuntime
import FerryStore
import FerryVault
import FerryWebhooks
import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import Tracing

/// The gateway's composition root: everything `ferryd serve` runs, assembled in one place.
///
/// Starts the database (the private cluster when no URL is configured) and applies pending
/// migrations, then wires the store, the engine, the workers, the webhook dispatcher and the API's
/// router into one Hummingbird application. Nothing listens or runs until the application runs; its
/// services stop in reverse order (the server, then the workers, ..., and last the engine and the
/// database), so paused transfers still reach the database on the way down.
///
/// - Parameters:
///   - exposition: the registry `/metrics` shows and everything here records into; ferryd's is also
///     the process's MetricsSystem, which Hummingbird's request metrics go through.
///   - tracer: where spans go (requests, job attempts and their hops, database calls, webhook
///     deliveries); it must also be the process's `InstrumentationSystem` tracer, which the request
///     spans go through. Nil: nothing is traced, and no request pays for it.
///   - onServerRunning: told the listening channel once the server accepts connections.
public func buildApplication(
    configuration: GatewayConfiguration,
    exposition: PrometheusExposition = PrometheusExposition(),
    tracer: (any Tracer)? = nil,
    logger: Logger = Logger(label: "ferryd"),
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let source = MigrationSource(directory: configuration.migrationsDirectory)
    let migrations = try source.load()
    // Before the database starts: a wrong or missing key file is a configuration error.
    let vault = try configuration.vaultKeySource.keyring(logger: logger)

    let database = try await GatewayDatabase.start(for: configuration, logger: logger)
    do {
        let report = try await database.applyMigrations(migrations, from: source.description, logger: logger)
        for line in report.lines { logger.info("\(line)") }
        // Secrets stored plain before they were sealed (migrations/0013) are sealed before anything serves.
        _ = try await database.withConnection(logger: logger) { connection in
            try await PlainSecretsSealing.runIfPending(on: connection, keyring: vault, logger: logger)
        }
    } catch {
        try? await database.stop()
        throw error
    }
    let metrics = GatewayMetrics(factory: exposition.factory)
    let client = makeClient(database: database, configuration: configuration, metrics: metrics, tracer: tracer, logger: logger)
    let files = GatewayFiles(dataDirectory: configuration.dataDirectory)
    let credentials = CredentialStore(client: client, keyring: vault, logger: logger)
    let cookies = SessionCookieStore(client: client, keyring: vault, logger: logger)
    let engine = JobEngine(
        allowPrivateNetworks: configuration.allowPrivateNetworks,
        outfitters: outfitters(configuration: configuration, client: client, files: files, credentials: credentials, cookies: cookies, logger: logger),
        metricsFactory: exposition.factory)
    // Answers to decisions seal inline passwords with the vault key; a `{"id"}` answer names one of
    // the tenant's vault credentials.
    let decisionCredentials = DecisionCredentials(keyring: vault, vault: VaultDecisionCredentials(store: credentials))
    let workers = WorkerPool(
        queue: JobQueue(client: client, keyring: vault, logger: logger), engine: engine, files: files,
        settings: WorkerPool.Settings(
            workers: configuration.workers, leaseSeconds: configuration.leaseSeconds,
            retryBaseDelay: .milliseconds(configuration.retryBaseMilliseconds), maxStorageBytesPerTenant: configuration.maxStorageBytesPerTenant),
        metrics: metrics, decisionCredentials: decisionCredentials, tracer: tracer, logger: logger)
    let eventFeed = JobEventFeed(client: client, logger: logger)
    let webhooks = WebhookDispatcher(
        queue: WebhookDeliveryQueue(client: client, keyring: vault, logger: logger),
        store: WebhookStore(client: client, keyring: vault, logger: logger), feed: eventFeed,
        settings: WebhookDispatcher.Settings(
            schedule: configuration.webhookRetrySchedule, allowPrivateNetworks: configuration.allowPrivateNetworks),
        metrics: metrics, tracer: tracer, logger: logger)
    var api = APIRouter.Dependencies.stores(
        client: client, vault: vault, files: files, metrics: metrics, exposition: exposition, eventFeed: eventFeed,
        decisionCredentials: decisionCredentials, eventStreams: EventStreamLimit(perTenant: configuration.maxEventStreamsPerTenant),
        maxStorageBytesPerTenant: configuration.maxStorageBytesPerTenant, logger: logger)
    api.tracesRequests = tracer != nil

    var app = Application(
        router: APIRouter.build(api),
        server: .http1(configuration: .init(
            additionalChannelHandlers: [MalformedRequestHandler()], idleTimeout: .seconds(Int64(configuration.idleConnectionSeconds)))),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "ferryd"),
        services: [
            GatewayLifetime(engine: engine, database: database, logger: logger),
            client, workers, eventFeed, webhooks,
            JobEventRetention(client: client, retentionDays: configuration.eventRetentionDays, logger: logger),
            ContentRetention(client: client, files: files, defaultDays: configuration.contentRetentionDays, logger: logger),
        ],
        onServerRunning: onServerRunning,
        logger: logger)
    let keys = api.keys
    app.beforeServerStarts {
        try await AdminKeyBootstrap.prepare(
            configured: configuration.adminKey, dataDirectory: configuration.dataDirectory, keys: keys, logger: logger)
    }
    return app
}

/// The engine's per-owner state: vault credentials and trust, session cookie jars, and the tenant's
/// HTTP cache unless it is turned off (0 bytes: no engine session gets one, no job touches its index).
private func outfitters(
    configuration: GatewayConfiguration, client: DatabasePool, files: GatewayFiles, credentials: CredentialStore,
    cookies: SessionCookieStore, logger: Logger
) -> [any EngineSessionOutfitter] {
    var outfitters: [any EngineSessionOutfitter] = [
        VaultOutfitter(store: credentials, logger: logger),
        SessionCookieJars(store: cookies),
    ]
    if configuration.cacheMaxBytesPerTenant > 0 {
        outfitters.append(TenantResponseCaches(
            index: TenantCacheIndex(client: client, logger: logger), files: files,
            maximumBytesPerTenant: configuration.cacheMaxBytesPerTenant))
    }
    return outfitters
}

/// Workers hold a connection only for a heartbeat's statement and the API's queries are short: a
/// bounded pool keeps several ferryd within the server's max_connections. While the database is
/// away the pool refuses at once (503 `database_unavailable`) and comes back with it (`DatabasePool`).
private func makeClient(
    database: GatewayDatabase, configuration: GatewayConfiguration, metrics: GatewayMetrics, tracer: (any Tracer)?, logger: Logger
) -> DatabasePool {
    var clientConfiguration = database.clientConfiguration
    clientConfiguration.options.maximumConnections = min(32, configuration.workers + 8)
    return DatabasePool(
        clientConfiguration: clientConfiguration, probeConfiguration: database.connectionConfiguration, metrics: metrics, tracer: tracer,
        logger: logger)
}
