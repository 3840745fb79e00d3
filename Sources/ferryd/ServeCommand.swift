import ArgumentParser
import FerryGateway
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// `ferryd serve`: the HTTP API and the worker pool in one process.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the transfer gateway: the HTTP API and the workers.",
        discussion: """
            Applies pending migrations, makes sure an admin key exists (FERRY_ADMIN_KEY, else \
            <data dir>/admin.key, created on first start), then serves until SIGTERM or SIGINT. On \
            either, it stops accepting requests, pauses running transfers with resume data, hands \
            their jobs back to the queue and exits 0.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("port"), help: ArgumentHelp("Port to listen on (env FERRY_PORT; default 8080).", valueName: "port"))
    var port: String?

    @Option(name: .customLong("host"), help: ArgumentHelp("Address to listen on (env FERRY_HOST; default 127.0.0.1).", valueName: "address"))
    var host: String?

    @Option(name: .customLong("workers"), help: ArgumentHelp("Transfers run at once by this process (env FERRY_WORKERS; default 8).", valueName: "n"))
    var workers: String?

    @Option(
        name: .customLong("allow-private-networks"),
        help: ArgumentHelp("Let jobs reach loopback and private addresses (env FERRY_ALLOW_PRIVATE_NETWORKS; default false).", valueName: "bool"))
    var allowPrivateNetworks: String?

    func run() async throws {
        let logger = Logger(label: "ferryd")
        do {
            try await serve(logger: logger)
        } catch {
            FileHandle.standardError.write(Data("ferryd serve: \(PostgresErrorDescription.describe(error))\n".utf8))
            throw ExitCode.failure
        }
    }

    private func serve(logger: Logger) async throws {
        var flags = database.flags
        flags.port = port
        flags.host = host
        flags.workers = workers
        flags.allowPrivateNetworks = allowPrivateNetworks
        let configuration = try GatewayConfiguration(flags: flags)
        logger.info("starting", metadata: ["configuration": "\(configuration)"])
        let directory = try MigrationDirectoryLocator.locate(explicit: configuration.migrationsDirectory)
        let migrations = try directory.load()
        // Before the database starts: a wrong or missing key file is a configuration error.
        let vault = try configuration.vaultKeySource.keyring(logger: logger)

        let gatewayDatabase = try await GatewayDatabase.start(for: configuration, logger: logger)
        // Made here, run as a service in runServices: the engine's outfitters read through it.
        let client = Self.makeClient(database: gatewayDatabase, configuration: configuration, logger: logger)
        let files = GatewayFiles(dataDirectory: configuration.dataDirectory)
        var outfitters: [any EngineSessionOutfitter] = [
            VaultOutfitter(store: CredentialStore(client: client, keyring: vault, logger: logger), logger: logger),
            SessionCookieJars(store: SessionCookieStore(client: client, logger: logger)),
        ]
        // 0 turns the cache off: no engine session gets one, and no job reads or writes its index.
        if configuration.cacheMaxBytesPerTenant > 0 {
            outfitters.append(TenantResponseCaches(
                client: client, files: files, maximumBytesPerTenant: configuration.cacheMaxBytesPerTenant, logger: logger))
        }
        let engine = JobEngine(allowPrivateNetworks: configuration.allowPrivateNetworks, outfitters: outfitters)
        do {
            let report = try await gatewayDatabase.applyMigrations(migrations, from: directory.path, logger: logger)
            for line in report.lines { logger.info("\(line)") }
            try await runServices(configuration: configuration, client: client, files: files, engine: engine, vault: vault, logger: logger)
        } catch {
            engine.invalidateAll()
            try? await gatewayDatabase.stop()
            throw error
        }
        engine.invalidateAll()
        try await gatewayDatabase.stop()
        logger.info("stopped")
    }

    private func runServices(
        configuration: GatewayConfiguration, client: PostgresClient, files: GatewayFiles, engine: JobEngine, vault: VaultKeyring,
        logger: Logger
    ) async throws {
        let metrics = GatewayMetrics()
        // Answers to decisions seal inline passwords with the vault key; a `{"id"}` answer names one
        // of the tenant's vault credentials.
        let decisionCredentials = DecisionCredentials(
            keyring: vault, vault: VaultDecisionCredentials(store: CredentialStore(client: client, keyring: vault, logger: logger)))
        let workers = WorkerPool(
            client: client, queue: JobQueue(client: client, logger: logger), engine: engine, files: files,
            settings: WorkerPool.Settings(
                workers: configuration.workers, leaseSeconds: configuration.leaseSeconds,
                retryBaseDelay: .milliseconds(configuration.retryBaseMilliseconds)),
            metrics: metrics, decisionCredentials: decisionCredentials, logger: logger)
        let events = JobEventFeed(client: client, logger: logger)
        let webhooks = WebhookDispatcher(
            client: client, feed: events,
            settings: WebhookDispatcher.Settings(
                schedule: configuration.webhookRetrySchedule, allowPrivateNetworks: configuration.allowPrivateNetworks),
            logger: logger)
        let router = GatewayApplication.buildRouter(
            .init(client: client, files: files, metrics: metrics, logger: logger, vault: vault, events: events,
                  decisionCredentials: decisionCredentials))
        let host = configuration.host
        var app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: "ferryd"),
            services: [
                client, workers, events, webhooks,
                JobEventRetention(client: client, retentionDays: configuration.eventRetentionDays, logger: logger),
            ],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                // On standard output, unbuffered: scripts and tests wait for this line.
                FileHandle.standardOutput.write(Data("ferryd listening on http://\(host):\(port)\n".utf8))
            },
            logger: logger)
        app.beforeServerStarts {
            try await AdminKeyBootstrap.prepare(
                configured: configuration.adminKey, dataDirectory: configuration.dataDirectory,
                keys: KeyStore(client: client, logger: logger), logger: logger)
        }
        // Like app.runService(), but bounded: a transfer that will not stop cannot hold ferryd forever.
        var groupConfiguration = ServiceGroupConfiguration(
            services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Self.shutdownLimit
        try await ServiceGroup(configuration: groupConfiguration).run()
    }

    private static func makeClient(database: GatewayDatabase, configuration: GatewayConfiguration, logger: Logger) -> PostgresClient {
        var clientConfiguration = database.clientConfiguration
        // Workers hold a connection only for a heartbeat's statement; the API's queries are short
        // too. A bounded pool keeps several ferryd within the server's max_connections.
        clientConfiguration.options.maximumConnections = min(32, configuration.workers + 8)
        return PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
    }

    /// How long a graceful shutdown may take before what is left is cancelled: pausing transfers and
    /// writing their resume data takes well under a second each, in parallel.
    static let shutdownLimit = Duration.seconds(20)
}
