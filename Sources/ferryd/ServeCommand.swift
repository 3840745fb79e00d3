import ArgumentParser
import FerryGateway
import FerryMetrics
import FerryPrivatePostgres
import Foundation
import Logging
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
        let host = configuration.host
        // One registry for the process: the gateway's metrics and what libraries record through
        // swift-metrics (Hummingbird's request metrics) are served together at /metrics.
        let exposition = PrometheusExposition()
        exposition.bootstrapMetricsSystem()
        let traces = try TraceExport.start()
        if traces != nil { logger.info("exporting traces over OTLP (OTEL_* environment)") }
        let app = try await buildApplication(configuration: configuration, exposition: exposition, tracer: traces?.tracer, logger: logger) { channel in
            let port = channel.localAddress?.port ?? 0
            // On standard output, unbuffered: scripts and tests wait for this line.
            FileHandle.standardOutput.write(Data("ferryd listening on http://\(host):\(port)\n".utf8))
        }
        // Like app.runService(), but bounded: a transfer that will not stop cannot hold ferryd forever.
        // The exporter first, so that it stops last and sends the spans of the shutdown too.
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = (traces.map { [.init(service: $0.service)] } ?? []) + [.init(service: app)]
        var groupConfiguration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Self.shutdownLimit
        try await ServiceGroup(configuration: groupConfiguration).run()
        logger.info("stopped")
    }

    /// How long a graceful shutdown may take before what is left is cancelled: pausing transfers and
    /// writing their resume data takes well under a second each, in parallel.
    static let shutdownLimit = Duration.seconds(20)
}
