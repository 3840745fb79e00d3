import FerryVault
import Foundation
import Synchronization

/// A real `ferryd serve` process for end-to-end tests, on a test database, listening on a port the
/// system picked, with test-sized lease and retry times. Stopped with SIGTERM (`terminate()`) or
/// SIGKILL (`kill()`); the test owns its data directory.
public final class FerrydServer: Sendable {
    public struct Options: Sendable {
        public var workers: Int
        /// Short, so a killed ferryd's jobs are taken over soon, yet several heartbeats long (1 s each)
        /// so a loaded test machine does not lose leases of live workers.
        public var leaseSeconds: Int
        public var retryBaseMilliseconds: Int
        public var allowPrivateNetworks: Bool
        /// Webhook retries in seconds, not hours, so a test sees several attempts.
        public var webhookRetrySchedule: String
        /// `FERRY_VAULT_KEY`, newest first. By default one key for the whole test process, so that
        /// several ferryd on one test database open each other's credentials, as in production.
        public var vaultKeys: [String]
        /// `FERRY_CACHE_MAX_BYTES_PER_TENANT`; nil: ferryd's default.
        public var cacheMaxBytesPerTenant: Int?
        /// `FERRY_MAX_EVENT_STREAMS_PER_TENANT`; nil: ferryd's default.
        public var maxEventStreamsPerTenant: Int?
        /// `FERRY_MAX_STORAGE_BYTES_PER_TENANT`; nil: ferryd's default (unlimited).
        public var maxStorageBytesPerTenant: Int64?
        /// `FERRY_CONTENT_RETENTION_DAYS`; nil: ferryd's default (for ever).
        public var contentRetentionDays: Int?
        /// More variables for the process (`OTEL_*`, say); the test process's own FERRY_* and OTEL_*
        /// never reach it.
        public var environment: [String: String] = [:]

        public init(
            workers: Int = 4, leaseSeconds: Int = 5, retryBaseMilliseconds: Int = 100, allowPrivateNetworks: Bool = true,
            webhookRetrySchedule: String = "1s,1s,2s", vaultKeys: [String] = [FerrydServer.testVaultKey],
            cacheMaxBytesPerTenant: Int? = nil, maxEventStreamsPerTenant: Int? = nil, maxStorageBytesPerTenant: Int64? = nil,
            contentRetentionDays: Int? = nil
        ) {
            self.workers = workers
            self.leaseSeconds = leaseSeconds
            self.retryBaseMilliseconds = retryBaseMilliseconds
            self.allowPrivateNetworks = allowPrivateNetworks
            self.webhookRetrySchedule = webhookRetrySchedule
            self.vaultKeys = vaultKeys
            self.cacheMaxBytesPerTenant = cacheMaxBytesPerTenant
            self.maxEventStreamsPerTenant = maxEventStreamsPerTenant
            self.maxStorageBytesPerTenant = maxStorageBytesPerTenant
            self.contentRetentionDays = contentRetentionDays
        }
    }

    /// The vault key every test ferryd gets unless a test gives its own.
    public static let testVaultKey = VaultKey.generateText()

    public let baseURL: String
    public let dataDirectory: String
    private let process: Process
    private let outputFile: String
    private let errorFile: String
    private let exitStatus: ExitStatus

    private init(baseURL: String, dataDirectory: String, process: Process, outputFile: String, errorFile: String, exitStatus: ExitStatus) {
        self.baseURL = baseURL
        self.dataDirectory = dataDirectory
        self.process = process
        self.outputFile = outputFile
        self.errorFile = errorFile
        self.exitStatus = exitStatus
    }

    public struct StartFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts ferryd and returns once it listens; `name` tells several processes' logs apart.
    public static func start(
        databaseURL: String, dataDirectory: String, adminKey: String, options: Options = Options(), name: String = "ferryd"
    ) async throws -> FerrydServer {
        TestProcessCleanup.prepare()
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let outputFile = "\(dataDirectory)/\(name).\(UUID().uuidString.prefix(6)).out"
        let errorFile = "\(dataDirectory)/\(name).\(UUID().uuidString.prefix(6)).err"
        _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)

        let process = Process()
        process.executableURL = try FerrydBinary.url()
        process.arguments = ["serve"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FERRY_") && !$0.key.hasPrefix("OTEL_") }
        environment["FERRY_DATABASE_URL"] = databaseURL
        environment["FERRY_DATA_DIR"] = dataDirectory
        environment["FERRY_ADMIN_KEY"] = adminKey
        environment["FERRY_PORT"] = "0"
        environment["FERRY_WORKERS"] = String(options.workers)
        environment["FERRY_LEASE_SECONDS"] = String(options.leaseSeconds)
        environment["FERRY_RETRY_BASE_MS"] = String(options.retryBaseMilliseconds)
        environment["FERRY_ALLOW_PRIVATE_NETWORKS"] = options.allowPrivateNetworks ? "true" : "false"
        environment["FERRY_WEBHOOK_RETRY_SCHEDULE"] = options.webhookRetrySchedule
        environment["FERRY_VAULT_KEY"] = options.vaultKeys.joined(separator: ",")
        if let bytes = options.cacheMaxBytesPerTenant { environment["FERRY_CACHE_MAX_BYTES_PER_TENANT"] = String(bytes) }
        if let streams = options.maxEventStreamsPerTenant { environment["FERRY_MAX_EVENT_STREAMS_PER_TENANT"] = String(streams) }
        if let bytes = options.maxStorageBytesPerTenant { environment["FERRY_MAX_STORAGE_BYTES_PER_TENANT"] = String(bytes) }
        if let days = options.contentRetentionDays { environment["FERRY_CONTENT_RETENTION_DAYS"] = String(days) }
        environment.merge(options.environment) { $1 }
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        process.standardInput = FileHandle.nullDevice
        let exitStatus = ExitStatus()
        process.terminationHandler = { finished in exitStatus.value.withLock { $0 = finished.terminationStatus } }
        try process.run()

        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let output = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("ferryd listening on ") }) {
                let url = String(line.dropFirst("ferryd listening on ".count))
                return FerrydServer(
                    baseURL: url, dataDirectory: dataDirectory, process: process, outputFile: outputFile, errorFile: errorFile,
                    exitStatus: exitStatus)
            }
            if exitStatus.value.withLock({ $0 }) != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning { process.terminate() }
        let log = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        throw StartFailed(description: "ferryd did not start listening:\n\(log)")
    }

    /// Starts ferryd, runs `body` with it and stops it; when `body` throws, ferryd's log is printed first.
    public static func withRunning<Result: Sendable>(
        databaseURL: String, dataDirectory: String, adminKey: String, options: Options = Options(),
        _ body: (FerrydServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start(databaseURL: databaseURL, dataDirectory: dataDirectory, adminKey: adminKey, options: options)
        do {
            let result = try await body(server)
            _ = try await server.terminate()
            return result
        } catch {
            print("ferryd log:\n\(server.log)")
            _ = try? await server.terminate()
            throw error
        }
    }

    public var log: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }
    public var isRunning: Bool { exitStatus.value.withLock { $0 } == nil }

    /// SIGTERM, then waits for the exit; returns the status (nil when it had to be killed after `timeout`).
    public func terminate(timeout: Duration = .seconds(30)) async throws -> Int32? {
        guard isRunning else { return exitStatus.value.withLock { $0 } }
        Foundation.kill(process.processIdentifier, SIGTERM)
        if let status = try await waitForExit(timeout: timeout) { return status }
        await kill()
        return nil
    }

    /// SIGSTOP: the process stands still, holding its sockets, files and locks, as a machine that
    /// stalls (swapping, a VM paused) does; `resumeProcess()` lets it go on as if nothing happened.
    public func stopProcess() {
        guard isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGSTOP)
    }

    /// SIGCONT after `stopProcess()`.
    public func resumeProcess() {
        guard isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGCONT)
    }

    /// SIGKILL: no chance to write anything, as in a crash or an OOM kill.
    public func kill() async {
        guard isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        _ = try? await waitForExit(timeout: .seconds(30))
    }

    private func waitForExit(timeout: Duration) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = exitStatus.value.withLock({ $0 }) { return status }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

/// The exit status of a child process, once it has exited.
final class ExitStatus: Sendable {
    let value = Mutex<Int32?>(nil)
}
