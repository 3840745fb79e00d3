import FerryAPI
import FerryModel
import FerryRuntime
import FerryStore
import FerryVault
import FerryWebhooks
import Foundation

/// Everything `ferryd` is told by its operator: where to listen, which database, where its files
/// live, the admin key, how many transfers to run at once and whether private networks are reachable.
///
/// Built once at start from the environment and command-line flags (a flag wins over its variable),
/// with every value checked; all problems are reported together, one line each, so a bad env file
/// is fixed in one round. Secrets are `Secret`s, so `description` (which is what gets logged) cannot
/// show them.
public struct GatewayConfiguration: Sendable, Equatable, CustomStringConvertible {
    public static let defaultPort = 8080
    public static let defaultHost = "127.0.0.1"
    public static let defaultDataDirectory = ".ferry"
    public static let defaultWorkers = 8
    /// Upper bound on concurrent transfers per process: each holds sockets and file descriptors,
    /// and a typo (80000) should be an error, not a descriptor exhaustion at the first burst.
    public static let maximumWorkers = 1024
    public static let defaultMaxEventStreamsPerTenant = EventStreamLimit.defaultPerTenant
    public static let defaultLeaseSeconds = 30
    public static let defaultRetryBaseMilliseconds = 2000
    /// A week: longer than a webhook delivery's whole default retry schedule (under four days).
    public static let defaultEventRetentionDays = 7
    /// As nginx's `client_header_timeout` (60 s): long enough for any client between requests.
    public static let defaultIdleConnectionSeconds = 60

    /// `FERRY_PORT` / `--port`: the HTTP API's port; 0 lets the system choose a free one.
    public var port: Int
    /// `FERRY_HOST` / `--host`: the address the HTTP API listens on.
    public var host: String
    /// `FERRY_DATABASE_URL` / `--database-url`. Nil: ferryd runs its own cluster under `dataDirectory`.
    public var databaseURL: DatabaseURL?
    /// `FERRY_DATA_DIR` / `--data-dir`, always absolute: downloaded files, blobs, the private cluster.
    public var dataDirectory: String
    /// `FERRY_ADMIN_KEY`. Nil: ferryd creates one on first start and writes it under `dataDirectory`.
    public var adminKey: Secret?
    /// `FERRY_WORKERS` / `--workers`: transfers this process runs at once.
    public var workers: Int
    /// `FERRY_ALLOW_PRIVATE_NETWORKS` / `--allow-private-networks`: whether jobs may reach loopback,
    /// private, link-local and metadata addresses. Off by default: a multi-tenant fetcher must not
    /// become a way into the network it runs in.
    public var allowPrivateNetworks: Bool
    /// `FERRY_MIGRATIONS_DIR` / `--migrations`: a folder of migrations to use instead of the built-in set. Nil: the built-in set.
    public var migrationsDirectory: String?
    /// `FERRY_LEASE_SECONDS`: how long a worker's claim on a job holds without renewal. A ferryd that
    /// dies loses its jobs to the others (or to itself, restarted) this long after its last renewal.
    public var leaseSeconds: Int
    /// `FERRY_RETRY_BASE_MS`: the wait before a failed job's second attempt; each later wait doubles.
    public var retryBaseMilliseconds: Int
    /// `FERRY_WEBHOOK_RETRY_SCHEDULE`: the waits between a webhook delivery's attempts (`5s,5m,30m,...`).
    public var webhookRetrySchedule: WebhookRetrySchedule
    /// `FERRY_VAULT_KEY` or `FERRY_VAULT_KEY_FILE`: the keys credentials are sealed with (see `VaultKeySource`).
    public var vaultKeySource: VaultKeySource
    /// `FERRY_CACHE_MAX_BYTES_PER_TENANT`: the most bytes each tenant's HTTP cache keeps on disk (the
    /// least recently used entries go first); one entry may take a tenth. 0 turns caching off.
    public var cacheMaxBytesPerTenant: Int
    /// `FERRY_EVENT_RETENTION_DAYS`: how long job events (and their webhook delivery records) are kept
    /// (`JobEventRetention`).
    public var eventRetentionDays: Int
    /// `FERRY_MAX_EVENT_STREAMS_PER_TENANT`: Server-Sent Events streams each tenant may hold open on
    /// this ferryd at once; one more is a 429 `too_many_streams`.
    public var maxEventStreamsPerTenant: Int
    /// `FERRY_MAX_STORAGE_BYTES_PER_TENANT`: the bytes of blobs and succeeded jobs' content a tenant
    /// without its own `max_storage_bytes` may store; nil (the default): unlimited.
    public var maxStorageBytesPerTenant: Int64?
    /// `FERRY_CONTENT_RETENTION_DAYS`: days a succeeded job's content (unless the job says otherwise)
    /// and an unused blob are kept (`ContentRetention`); nil (the default): for ever.
    public var contentRetentionDays: Int?
    /// `FERRY_IDLE_CONNECTION_SECONDS`: an API connection with no request being answered (a
    /// keep-alive connection between requests, or a client still sending its request's head or body)
    /// is closed after this many seconds without a complete part of a request. Without it, idle or
    /// trickling connections were kept for ever, each holding a descriptor. Streams being answered
    /// (event streams, `Prefer: wait`, content) are not idle.
    public var idleConnectionSeconds: Int

    /// A configuration with every default, the data directory resolved against `currentDirectory`.
    public init(
        port: Int = GatewayConfiguration.defaultPort,
        host: String = GatewayConfiguration.defaultHost,
        databaseURL: DatabaseURL? = nil,
        dataDirectory: String,
        adminKey: Secret? = nil,
        workers: Int = GatewayConfiguration.defaultWorkers,
        allowPrivateNetworks: Bool = false,
        migrationsDirectory: String? = nil,
        leaseSeconds: Int = GatewayConfiguration.defaultLeaseSeconds,
        retryBaseMilliseconds: Int = GatewayConfiguration.defaultRetryBaseMilliseconds,
        webhookRetrySchedule: WebhookRetrySchedule = .standard,
        vaultKeySource: VaultKeySource? = nil,
        cacheMaxBytesPerTenant: Int = TenantResponseCaches.defaultMaximumBytesPerTenant,
        eventRetentionDays: Int = GatewayConfiguration.defaultEventRetentionDays,
        maxEventStreamsPerTenant: Int = GatewayConfiguration.defaultMaxEventStreamsPerTenant,
        maxStorageBytesPerTenant: Int64? = nil,
        contentRetentionDays: Int? = nil,
        idleConnectionSeconds: Int = GatewayConfiguration.defaultIdleConnectionSeconds
    ) {
        self.port = port
        self.host = host
        self.databaseURL = databaseURL
        self.dataDirectory = dataDirectory
        self.adminKey = adminKey
        self.workers = workers
        self.allowPrivateNetworks = allowPrivateNetworks
        self.migrationsDirectory = migrationsDirectory
        self.leaseSeconds = leaseSeconds
        self.retryBaseMilliseconds = retryBaseMilliseconds
        self.webhookRetrySchedule = webhookRetrySchedule
        self.vaultKeySource = vaultKeySource ?? .defaultFile(dataDirectory: dataDirectory)
        self.cacheMaxBytesPerTenant = cacheMaxBytesPerTenant
        self.eventRetentionDays = eventRetentionDays
        self.maxEventStreamsPerTenant = maxEventStreamsPerTenant
        self.maxStorageBytesPerTenant = maxStorageBytesPerTenant
        self.contentRetentionDays = contentRetentionDays
        self.idleConnectionSeconds = idleConnectionSeconds
    }

    /// Reads `FERRY_*` variables from `environment`, lets `flags` override them, checks every value.
    ///
    /// - Parameter currentDirectory: what relative paths are relative to; resolved here, once, so
    ///   that the data directory does not move if the process later changes directory.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        flags: GatewayConfigurationFlags = GatewayConfigurationFlags(),
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(GatewayConfigurationError) {
        var problems: [String] = []
        /// The flag's value if given, else the variable's, parsed by `read`; a problem is collected, not thrown.
        func setting<Value>(
            _ flag: String?, _ flagName: String, _ variable: String,
            _ read: (ConfigurationValue) throws -> Value
        ) -> Value? {
            guard let raw = ConfigurationValue.lookup(flag: flag, flagName: flagName, environment: environment, variable: variable) else {
                return nil
            }
            do {
                return try read(raw)
            } catch let error as GatewayConfigurationError {
                problems.append(contentsOf: error.problems)
                return nil
            } catch {
                problems.append("\(raw.origin): \(error)")
                return nil
            }
        }

        // 0: any free port; the "ferryd listening on" line says which (tests run many ferryd at once).
        let port = setting(flags.port, "--port", "FERRY_PORT") { try $0.integer(in: 0...65535) }
        let host = setting(flags.host, "--host", "FERRY_HOST") { try $0.listenHost() }
        let databaseURL = setting(flags.databaseURL, "--database-url", "FERRY_DATABASE_URL") {
            try DatabaseURL(parsing: $0.text, origin: $0.origin)
        }
        let dataDirectory = setting(flags.dataDirectory, "--data-dir", "FERRY_DATA_DIR") {
            try $0.absolutePath(against: currentDirectory)
        }
        let adminKey = setting(nil, "", "FERRY_ADMIN_KEY") { try $0.adminKey() }
        let workers = setting(flags.workers, "--workers", "FERRY_WORKERS") { try $0.integer(in: 1...Self.maximumWorkers) }
        let allowPrivateNetworks = setting(
            flags.allowPrivateNetworks, "--allow-private-networks", "FERRY_ALLOW_PRIVATE_NETWORKS"
        ) { try $0.boolean() }
        let migrationsDirectory = setting(flags.migrationsDirectory, "--migrations", "FERRY_MIGRATIONS_DIR") {
            try $0.absolutePath(against: currentDirectory)
        }

        let leaseSeconds = setting(nil, "", "FERRY_LEASE_SECONDS") { try $0.integer(in: 2...3600) }
        let retryBase = setting(nil, "", "FERRY_RETRY_BASE_MS") { try $0.integer(in: 1...3_600_000) }
        let webhookRetrySchedule = setting(nil, "", "FERRY_WEBHOOK_RETRY_SCHEDULE") { try $0.webhookRetrySchedule() }
        let vaultKeys = setting(nil, "", "FERRY_VAULT_KEY") { try $0.vaultKeys() }
        let vaultKeyFile = setting(nil, "", "FERRY_VAULT_KEY_FILE") { try $0.absolutePath(against: currentDirectory) }
        if vaultKeys != nil, vaultKeyFile != nil {
            problems.append("FERRY_VAULT_KEY and FERRY_VAULT_KEY_FILE are both set: give the vault keys one way")
        }
        let cacheMaxBytes = setting(nil, "", "FERRY_CACHE_MAX_BYTES_PER_TENANT") { try $0.integer(in: 0...(1 << 50)) }
        let eventRetentionDays = setting(nil, "", "FERRY_EVENT_RETENTION_DAYS") { try $0.integer(in: 1...36_500) }
        let maxEventStreams = setting(nil, "", "FERRY_MAX_EVENT_STREAMS_PER_TENANT") { try $0.integer(in: 1...100_000) }
        let maxStorageBytes = setting(nil, "", "FERRY_MAX_STORAGE_BYTES_PER_TENANT") { try $0.integer(in: 0...Int.max) }
        let contentRetentionDays = setting(nil, "", "FERRY_CONTENT_RETENTION_DAYS") { try $0.integer(in: 1...36_500) }
        let idleConnectionSeconds = setting(nil, "", "FERRY_IDLE_CONNECTION_SECONDS") { try $0.integer(in: 1...86_400) }

        guard problems.isEmpty else {
            throw GatewayConfigurationError(problems: problems)
        }
        let resolvedDataDirectory = dataDirectory ?? ConfigurationValue.absolutePath(Self.defaultDataDirectory, against: currentDirectory)
        self.init(
            port: port ?? Self.defaultPort,
            host: host ?? Self.defaultHost,
            databaseURL: databaseURL,
            dataDirectory: resolvedDataDirectory,
            adminKey: adminKey,
            workers: workers ?? Self.defaultWorkers,
            allowPrivateNetworks: allowPrivateNetworks ?? false,
            migrationsDirectory: migrationsDirectory,
            leaseSeconds: leaseSeconds ?? Self.defaultLeaseSeconds,
            retryBaseMilliseconds: retryBase ?? Self.defaultRetryBaseMilliseconds,
            webhookRetrySchedule: webhookRetrySchedule ?? .standard,
            vaultKeySource: vaultKeys.map(VaultKeySource.keys) ?? vaultKeyFile.map(VaultKeySource.file),
            cacheMaxBytesPerTenant: cacheMaxBytes ?? TenantResponseCaches.defaultMaximumBytesPerTenant,
            eventRetentionDays: eventRetentionDays ?? Self.defaultEventRetentionDays,
            maxEventStreamsPerTenant: maxEventStreams ?? Self.defaultMaxEventStreamsPerTenant,
            maxStorageBytesPerTenant: maxStorageBytes.map(Int64.init),
            contentRetentionDays: contentRetentionDays,
            idleConnectionSeconds: idleConnectionSeconds ?? Self.defaultIdleConnectionSeconds
        )
    }

    /// One line for the start-up log. Secrets show only whether they are set.
    public var description: String {
        let database = databaseURL.map { "\($0)" } ?? "private cluster in \(dataDirectory)/postgres"
        let admin = adminKey == nil ? "generated on first start" : "set"
        let vault =
            switch vaultKeySource {
            case .keys(let keys): "\(keys.count) vault key(s) from FERRY_VAULT_KEY"
            case .file(let path): "vault keys in \(path)"
            case .defaultFile(let directory): "vault keys in \(directory)/\(VaultKeySource.defaultFileName)"
            }
        return "listen \(host):\(port), database \(database), data directory \(dataDirectory), "
            + "admin key \(admin), \(workers) workers, private networks \(allowPrivateNetworks ? "allowed" : "refused"), "
            + "webhook retries after \(webhookRetrySchedule), \(vault), cache \(cacheMaxBytesPerTenant) bytes per tenant, "
            + "job events kept \(eventRetentionDays) days, \(maxEventStreamsPerTenant) event streams per tenant, "
            + "storage \(maxStorageBytesPerTenant.map { "\($0) bytes" } ?? "unlimited") per tenant, "
            + "content kept \(contentRetentionDays.map { "\($0) days" } ?? "for ever"), "
            + "idle API connections closed after \(idleConnectionSeconds) s"
    }
}
