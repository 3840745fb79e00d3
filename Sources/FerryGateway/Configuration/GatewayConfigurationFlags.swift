/// Configuration given on the command line, as typed; nil when the flag was not given.
///
/// The values stay text here so that a flag and its environment variable go through the same
/// validation and produce the same messages (naming the flag instead of the variable).
///
/// There is deliberately no flag for the admin key: a process's arguments are readable by every
/// local user (`/proc/<pid>/cmdline`), so the key comes only from `FERRY_ADMIN_KEY`.
public struct GatewayConfigurationFlags: Sendable, Equatable {
    public var port: String?
    public var host: String?
    public var databaseURL: String?
    public var dataDirectory: String?
    public var workers: String?
    public var allowPrivateNetworks: String?
    public var migrationsDirectory: String?

    public init(
        port: String? = nil,
        host: String? = nil,
        databaseURL: String? = nil,
        dataDirectory: String? = nil,
        workers: String? = nil,
        allowPrivateNetworks: String? = nil,
        migrationsDirectory: String? = nil
    ) {
        self.port = port
        self.host = host
        self.databaseURL = databaseURL
        self.dataDirectory = dataDirectory
        self.workers = workers
        self.allowPrivateNetworks = allowPrivateNetworks
        self.migrationsDirectory = migrationsDirectory
    }
}
