import Foundation
import Logging
import PostgresNIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ferryd's own PostgreSQL cluster under `<data dir>/postgres`, used when no `FERRY_DATABASE_URL`
/// is configured, so that a fresh machine needs nothing but the postgresql package.
///
/// - `start()` creates the cluster on first use (`initdb`, trusting only the local socket, with no
///   TCP listener at all), starts the server (`pg_ctl start -w`) and creates the database `ferry`.
///   A server still running from this directory (ferryd was killed; another ferryd uses it) is
///   reused instead. A stale `postmaster.pid` left by a dead server is `pg_ctl`'s to clean up.
/// - `stop()` stops the server (`pg_ctl stop -m fast`) unless another ferryd process still uses it.
///
/// Several ferryd processes on one data directory coordinate through two lock files (see
/// `PrivatePostgresFileLock`): starting and stopping take turns, and every user of the server holds a
/// shared lock, so the last one out stops it. Locks die with their process, so a killed ferryd never
/// keeps the server alive for ever, nor blocks the next start.
///
/// As root, every PostgreSQL program runs as the system user `ferry-postgres` (see `PrivatePostgresAccount`).
public actor PrivatePostgres {
    public enum Durability: Sendable {
        /// Every commit reaches the disk: ferryd's own data.
        case durable
        /// No fsync: a machine crash may lose the cluster. For throwaway test clusters, where the
        /// speed matters and the data does not.
        case throwaway
    }

    /// The cluster's superuser and the database ferryd uses, the same whichever account runs the server.
    public static let userName = "ferry"
    public static let databaseName = "ferry"

    package static let lockTimeout: Duration = .seconds(180)
    package static let serverTimeoutSeconds = 120

    public nonisolated let dataDirectory: String
    private let layout: PrivatePostgresLayout
    private let durability: Durability
    private let configuredBinaries: PrivatePostgresBinaries?
    private let logger: Logger
    private var session: Session?

    /// What this instance holds while it uses the server.
    private struct Session {
        let endpoint: PrivatePostgresEndpoint
        let account: PrivatePostgresAccount
        let binaries: PrivatePostgresBinaries
        /// The shared lock that tells other ferryd processes this one still needs the server.
        let usage: PrivatePostgresFileLock
    }

    /// - Parameters:
    ///   - dataDirectory: ferryd's data directory (absolute); the cluster lives in its `postgres` folder.
    ///   - binaries: where initdb, pg_ctl and postgres are; nil finds them (see `PrivatePostgresBinaries`).
    public init(
        dataDirectory: String,
        durability: Durability = .durable,
        binaries: PrivatePostgresBinaries? = nil,
        logger: Logger = Logger(label: "ferry.postgres")
    ) {
        // Absolute, so that the socket path and the locks do not depend on the working directory.
        let absolute = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        self.dataDirectory = absolute
        self.layout = PrivatePostgresLayout(dataDirectory: absolute)
        self.durability = durability
        self.configuredBinaries = binaries
        self.logger = logger
    }

    /// How to connect, while this instance uses the server.
    public var endpoint: PrivatePostgresEndpoint? { session?.endpoint }

    /// Makes sure the server runs and the `ferry` database exists; returns how to connect.
    /// Calling it again while started returns the same endpoint.
    @discardableResult
    public func start() async throws -> PrivatePostgresEndpoint {
        if let session {
            return session.endpoint
        }
        let binaries = try configuredBinaries ?? PrivatePostgresBinaries.locate()
        let account = try await PrivatePostgresAccount.forThisProcess()
        try prepareDataDirectory(for: account)
        PrivatePostgresReaper.adoptOrphanedServers()

        let startStop = try await lockStartStop()
        defer { startStop.release() }
        // Another call on this actor may have finished starting while this one waited for the lock.
        if let session {
            return session.endpoint
        }
        let usage = try await PrivatePostgresFileLock.acquire(
            layout.usersLockFile, mode: .shared, timeout: Self.lockTimeout, waitingFor: "the lock \(layout.usersLockFile)")
        do {
            if !FileManager.default.fileExists(atPath: layout.clusterDirectory) {
                try await initializeCluster(account: account, binaries: binaries)
            }
            try await ensureOwnership(by: account)
            let endpoint: PrivatePostgresEndpoint
            if let running = try await runningServer() {
                endpoint = running
            } else {
                endpoint = try await startServer(account: account, binaries: binaries)
            }
            try await ensureDatabase(at: endpoint)
            session = Session(endpoint: endpoint, account: account, binaries: binaries, usage: usage)
            return endpoint
        } catch {
            usage.release()
            throw error
        }
    }

    /// Stops the server, unless another ferryd process still uses it. Does nothing if not started.
    public func stop() async throws {
        guard let session else {
            return
        }
        let startStop = try await lockStartStop()
        defer { startStop.release() }
        self.session = nil
        session.usage.release()
        guard let lastUser = try await Self.lastUserLock(layout.usersLockFile) else {
            logger.info("leaving the private PostgreSQL server running: another ferryd process uses it",
                        metadata: ["cluster": "\(layout.clusterDirectory)"])
            return
        }
        defer { lastUser.release() }
        if let stopping = Self.stopCommand(layout: layout, account: session.account, binaries: session.binaries) {
            let outcome = try await stopping.command.run()
            try Self.checkStopped(outcome, of: stopping, layout: layout)
        }
        logger.info("stopped the private PostgreSQL server", metadata: ["cluster": "\(layout.clusterDirectory)"])
    }

    /// The exclusive lock on the users file, or nil when another ferryd holds its shared one.
    ///
    /// Tried for a moment rather than once: a process this one is spawning (on any thread) holds a
    /// copy of every descriptor between its fork and its exec, close-on-exec ones included, and with
    /// it our released shared lock; that lasts milliseconds, another ferryd's use lasts its lifetime.
    private static func lastUserLock(_ path: String) async throws -> PrivatePostgresFileLock? {
        do {
            return try await PrivatePostgresFileLock.acquire(path, mode: .exclusive, timeout: .seconds(1), waitingFor: path)
        } catch PrivatePostgresError.timedOut {
            return nil
        }
    }

    /// Stops the server running from `dataDirectory`'s cluster now, whoever uses it, blocking the
    /// calling thread: for process exit (where nothing can be awaited) and for cleaning up after
    /// tests. Does nothing when no server runs there.
    public nonisolated static func stopServerNow(
        dataDirectory: String, binaries: PrivatePostgresBinaries? = nil
    ) throws(PrivatePostgresError) {
        let layout = PrivatePostgresLayout(dataDirectory: dataDirectory)
        guard FileManager.default.fileExists(atPath: layout.postmasterPIDFile),
            let account = try PrivatePostgresAccount.existingForThisProcess()
        else {
            return
        }
        let located: PrivatePostgresBinaries
        if let binaries {
            located = binaries
        } else {
            located = try PrivatePostgresBinaries.locate()
        }
        guard let stopping = stopCommand(layout: layout, account: account, binaries: located) else {
            return
        }
        let outcome = try stopping.command.runBlocking()
        try checkStopped(outcome, of: stopping, layout: layout)
    }

    /// The pid of the server running from `dataDirectory`'s cluster, if one runs.
    public nonisolated static func runningServerPID(dataDirectory: String) -> Int32? {
        let layout = PrivatePostgresLayout(dataDirectory: dataDirectory)
        guard let postmaster = PrivatePostgresPostmaster.read(from: layout.postmasterPIDFile),
            postmaster.processState == .alive, postmaster.isServer(of: layout.clusterDirectory)
        else {
            return nil
        }
        return postmaster.pid
    }

    // MARK: - Steps of start()

    private func lockStartStop() async throws -> PrivatePostgresFileLock {
        try await PrivatePostgresFileLock.acquire(
            layout.startStopLockFile, mode: .exclusive, timeout: Self.lockTimeout,
            waitingFor: "another ferryd to finish starting or stopping the cluster in \(layout.clusterDirectory)"
        ) { [logger, layout] in
            logger.info("waiting for another ferryd that is starting or stopping the private PostgreSQL server",
                        metadata: ["cluster": "\(layout.clusterDirectory)"])
        }
    }

    private func prepareDataDirectory(for account: PrivatePostgresAccount) throws(PrivatePostgresError) {
        let directory = layout.dataDirectory
        do {
            // Folders above it get the usual permissions (they may be shared, like /srv/ferry);
            // only the data directory itself is closed to others.
            let parent = URL(fileURLWithPath: directory).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            if mkdir(directory, 0o700) != 0, errno != EEXIST {
                throw PrivatePostgresError.fileSystem(
                    path: directory, action: "create the data directory", reason: String(cString: strerror(errno)))
            }
        } catch let error as PrivatePostgresError {
            throw error
        } catch {
            throw .fileSystem(path: directory, action: "create the data directory", reason: "\(error)")
        }
        if case .systemUser = account {
            // The server account must pass through the data directory to reach its cluster. Search
            // permission alone lets it do that without being able to list ferryd's other files.
            var status = stat()
            if stat(directory, &status) == 0, status.st_mode & 0o001 == 0 {
                guard chmod(directory, (status.st_mode & 0o7777) | 0o001) == 0 else {
                    throw .fileSystem(path: directory, action: "let \(account.name) enter", reason: String(cString: strerror(errno)))
                }
            }
        }
        try account.checkCanReach(layout.clusterDirectory)
    }

    /// initdb into a staging folder that becomes the cluster only once initdb succeeded, so a
    /// ferryd killed during its very first start leaves nothing that looks like a cluster.
    private func initializeCluster(account: PrivatePostgresAccount, binaries: PrivatePostgresBinaries) async throws {
        let staging = layout.initializingDirectory
        let fileManager = FileManager.default
        do {
            if fileManager.fileExists(atPath: staging) {
                logger.info("removing an unfinished cluster initialization", metadata: ["directory": "\(staging)"])
                try fileManager.removeItem(atPath: staging)
            }
            try fileManager.createDirectory(atPath: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PrivatePostgresError.fileSystem(path: staging, action: "prepare", reason: "\(error)")
        }
        try account.takeOwnership(of: staging)

        logger.info("creating the private PostgreSQL cluster", metadata: ["cluster": "\(layout.clusterDirectory)", "account": "\(account.name)"])
        var arguments = [
            "-D", staging, "-U", Self.userName,
            // Only the local socket is trusted, and the socket lives in a 0700 directory of the
            // server's account: nobody else on the machine can reach it. TCP is refused outright
            // (and not even listened on: see ferry.conf).
            "--auth-local=trust", "--auth-host=reject",
            "--encoding=UTF8", "--no-locale",
        ]
        if durability == .throwaway {
            arguments.append("--no-sync")
        }
        try await account.command(binaries.initdb, arguments, purpose: "initdb").runChecked()

        let configuration = "\(staging)/postgresql.conf"
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: configuration))
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("\n# Settings ferryd rewrites at every start.\ninclude_if_exists = 'ferry.conf'\n".utf8))
            try fileManager.moveItem(atPath: staging, toPath: layout.clusterDirectory)
        } catch {
            throw PrivatePostgresError.fileSystem(path: staging, action: "finish the new cluster in", reason: "\(error)")
        }
    }

    /// A cluster created by another account (ferryd ran as a normal user before, now as root) is
    /// handed over, since PostgreSQL insists on owning its data directory.
    private func ensureOwnership(by account: PrivatePostgresAccount) async throws {
        var status = stat()
        guard case .systemUser = account, stat(layout.clusterDirectory, &status) == 0, status.st_uid != account.uid else {
            return
        }
        logger.info("handing the cluster to \(account.name)", metadata: ["cluster": "\(layout.clusterDirectory)"])
        try await account.takeOwnership(ofTree: layout.clusterDirectory)
    }

    /// The server already running from this cluster, once it accepts connections; nil when none
    /// runs (after clearing what a dead one left behind that would stop a new one from starting).
    private func runningServer() async throws -> PrivatePostgresEndpoint? {
        let deadline = ContinuousClock.now + .seconds(Self.serverTimeoutSeconds)
        while true {
            guard let postmaster = PrivatePostgresPostmaster.read(from: layout.postmasterPIDFile) else {
                removeStaleSocketLock()
                return nil
            }
            var state = postmaster.processState
            if state == .zombie {
                // Ours to collect if this process started it (see PrivatePostgresReaper); then it is gone.
                PrivatePostgresReaper.collect(postmaster.pid, timeout: .zero)
                state = postmaster.processState
            }
            switch state {
            case .gone:
                // PostgreSQL handles its own stale pid file, checking first that no process of the
                // dead server still uses its shared memory.
                removeStaleSocketLock()
                return nil
            case .alive where postmaster.isServer(of: layout.clusterDirectory):
                if postmaster.isReady {
                    return try reusedEndpoint(postmaster)
                }
                // Starting up: wait until ready. Shutting down: wait until gone, then start anew.
            case .alive, .zombie:
                // The pid is a zombie (PostgreSQL would take it for alive) or now belongs to an
                // unrelated process (after a reboot or a container restart). Once nothing of the old
                // server is left, its lock files are stale, and PostgreSQL would refuse to start
                // while they name a live pid; until then its children are still finishing.
                if PrivatePostgresPostmaster.processes(workingIn: layout.clusterDirectory).isEmpty {
                    logger.info("removing the lock files of a PostgreSQL server that is gone",
                                metadata: ["pid": "\(postmaster.pid)", "cluster": "\(layout.clusterDirectory)"])
                    try? FileManager.default.removeItem(atPath: layout.postmasterPIDFile)
                    removeStaleSocketLock()
                    return nil
                }
            }
            guard ContinuousClock.now < deadline else {
                throw PrivatePostgresError.timedOut(
                    waitingFor: "the server (pid \(postmaster.pid)) in \(layout.clusterDirectory) to finish "
                        + "'\(postmaster.status ?? "unknown")' (its processes: \(PrivatePostgresPostmaster.processes(workingIn: layout.clusterDirectory)))")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private func reusedEndpoint(_ postmaster: PrivatePostgresPostmaster) throws -> PrivatePostgresEndpoint {
        guard let socketDirectory = postmaster.socketDirectory, let port = postmaster.port else {
            throw PrivatePostgresError.unusableServer(
                reason: "the server (pid \(postmaster.pid)) running from \(layout.clusterDirectory) has no Unix socket")
        }
        logger.info("reusing the private PostgreSQL server already running",
                    metadata: ["cluster": "\(layout.clusterDirectory)", "pid": "\(postmaster.pid)"])
        return PrivatePostgresEndpoint(socketDirectory: socketDirectory, port: port, user: Self.userName, database: Self.databaseName)
    }

    /// The socket's lock file names the server that made it; PostgreSQL refuses to create a socket
    /// while that pid looks alive, which a zombie does. Only called when no server of this cluster
    /// runs, and the socket directory is this cluster's alone.
    private func removeStaleSocketLock() {
        let lockFile = "\(layout.socketDirectory)/\(PrivatePostgresLayout.socketFileName).lock"
        guard let text = try? String(contentsOfFile: lockFile, encoding: .utf8),
            let pid = text.split(separator: "\n").first.flatMap({ pid_t($0.trimmingCharacters(in: .whitespaces)) }),
            ProcessState.of(pid) != .alive
        else {
            return
        }
        try? FileManager.default.removeItem(atPath: lockFile)
        try? FileManager.default.removeItem(atPath: "\(layout.socketDirectory)/\(PrivatePostgresLayout.socketFileName)")
    }

    private func startServer(account: PrivatePostgresAccount, binaries: PrivatePostgresBinaries) async throws -> PrivatePostgresEndpoint {
        try prepareSocketDirectory(for: account)
        try writeSettings(for: account)
        let command = account.command(
            binaries.pgCtl,
            ["start", "-w", "-t", "\(Self.serverTimeoutSeconds)", "-s", "-D", layout.clusterDirectory, "-l", layout.serverLogFile],
            purpose: "pg_ctl start")
        let outcome = try await command.run()
        guard outcome.succeeded else {
            // pg_ctl only says "see the log"; the reason is in the server log.
            throw PrivatePostgresError.commandFailed(
                purpose: command.purpose, commandLine: command.commandLine, status: outcome.status,
                output: outcome.standardError + "\n" + serverLogTail())
        }
        logger.info("started the private PostgreSQL server", metadata: ["cluster": "\(layout.clusterDirectory)", "socket": "\(layout.socketDirectory)"])
        return PrivatePostgresEndpoint(
            socketDirectory: layout.socketDirectory, port: PrivatePostgresLayout.port, user: Self.userName, database: Self.databaseName)
    }

    /// The socket directory must belong to the server account and be closed to everyone else:
    /// the cluster trusts anyone who can reach the socket.
    private func prepareSocketDirectory(for account: PrivatePostgresAccount) throws(PrivatePostgresError) {
        let directory = layout.socketDirectory
        if mkdir(directory, 0o700) == 0 {
            try account.takeOwnership(of: directory)
        } else if errno != EEXIST {
            throw .fileSystem(path: directory, action: "create the socket directory", reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard stat(directory, &status) == 0 else {
            throw .fileSystem(path: directory, action: "inspect the socket directory", reason: String(cString: strerror(errno)))
        }
        if status.st_uid != account.uid {
            // Under /tmp a directory we did not make could be a trap laid by another user.
            guard !layout.socketDirectoryIsOutsideDataDirectory else {
                throw .socketDirectoryTaken(path: directory, ownerUID: UInt32(status.st_uid), expectedUID: UInt32(account.uid))
            }
            try account.takeOwnership(of: directory)
        }
        guard chmod(directory, 0o700) == 0 else {
            throw .fileSystem(path: directory, action: "restrict the socket directory", reason: String(cString: strerror(errno)))
        }
    }

    /// `ferry.conf`: where the server listens, rewritten at every start so that a moved data
    /// directory (whose socket directory moves with it) keeps working.
    private func writeSettings(for account: PrivatePostgresAccount) throws(PrivatePostgresError) {
        var lines = [
            "# Written by ferryd at every start of its private cluster; edits here are overwritten.",
            "listen_addresses = ''",
            "unix_socket_directories = '\(Self.configurationString(layout.socketDirectory))'",
            "unix_socket_permissions = 0700",
            "port = \(PrivatePostgresLayout.port)",
            // Several ferryd may share the cluster, each with a pool of up to 32 connections
            // (ServeCommand), plus tests that run many ferryd at once.
            "max_connections = 300",
            // The job tables change all the time (migrations/0009): look for tables to vacuum every
            // 5 s rather than every minute, so a burst's dead rows go within seconds.
            "autovacuum_naptime = 5s",
        ]
        if durability == .throwaway {
            lines += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
        }
        let path = layout.settingsFile
        guard FileManager.default.createFile(atPath: path, contents: Data((lines.joined(separator: "\n") + "\n").utf8)),
            chmod(path, 0o600) == 0
        else {
            throw .fileSystem(path: path, action: "write", reason: String(cString: strerror(errno)))
        }
        try account.takeOwnership(of: path)
    }

    private func ensureDatabase(at endpoint: PrivatePostgresEndpoint) async throws(PrivatePostgresError) {
        let name = Self.databaseName
        do {
            try await PostgresConnection.withConnection(
                configuration: endpoint.connectionConfiguration(database: "postgres"), logger: logger
            ) { [logger] connection in
                let rows = try await connection.query("SELECT count(*) FROM pg_database WHERE datname = \(name)", logger: logger)
                var existing = 0
                for try await count in rows.decode(Int.self) {
                    existing = count
                }
                if existing == 0 {
                    try await connection.query("CREATE DATABASE \(unescaped: name)", logger: logger)
                    logger.info("created the database \(name)")
                }
            }
        } catch {
            // 42P04: created by a concurrent start in the meantime, which is what was wanted.
            guard PostgresErrorDescription.sqlState(of: error) == "42P04" else {
                throw .databaseSetupFailed(reason: PostgresErrorDescription.describe(error))
            }
        }
    }

    private func serverLogTail(lines: Int = 20) -> String {
        guard let text = try? String(contentsOfFile: layout.serverLogFile, encoding: .utf8) else {
            return "(no server log at \(layout.serverLogFile))"
        }
        let tail = text.split(separator: "\n").suffix(lines).joined(separator: "\n")
        return "last lines of \(layout.serverLogFile):\n\(tail)"
    }

    // MARK: - Stopping

    /// `pg_ctl stop` for the cluster and the server's pid, or nil when no server runs from it.
    private static func stopCommand(
        layout: PrivatePostgresLayout, account: PrivatePostgresAccount, binaries: PrivatePostgresBinaries
    ) -> (command: PrivatePostgresCommand, serverPID: pid_t)? {
        guard let postmaster = PrivatePostgresPostmaster.read(from: layout.postmasterPIDFile) else {
            return nil
        }
        guard postmaster.processState == .alive else {
            PrivatePostgresReaper.collect(postmaster.pid, timeout: .zero)
            return nil
        }
        // -m fast: disconnect clients and shut down cleanly now, rather than waiting for them to leave.
        let command = account.command(
            binaries.pgCtl, ["stop", "-D", layout.clusterDirectory, "-m", "fast", "-w", "-t", "\(serverTimeoutSeconds)", "-s"],
            purpose: "pg_ctl stop")
        return (command, postmaster.pid)
    }

    private static func checkStopped(
        _ outcome: PrivatePostgresCommand.Outcome, of stopping: (command: PrivatePostgresCommand, serverPID: pid_t), layout: PrivatePostgresLayout
    ) throws(PrivatePostgresError) {
        // A server that went away by itself meanwhile is stopped too.
        let stillRunning = PrivatePostgresPostmaster.read(from: layout.postmasterPIDFile)?.processState == .alive
        guard outcome.succeeded || !stillRunning else {
            throw .commandFailed(
                purpose: stopping.command.purpose, commandLine: stopping.command.commandLine, status: outcome.status,
                output: outcome.standardError)
        }
        // pg_ctl returns once the pid file is gone, moments before the server process ends.
        PrivatePostgresReaper.collect(stopping.serverPID)
        if layout.socketDirectoryIsOutsideDataDirectory {
            // Our own directory under /tmp; empty now that the server removed its socket.
            rmdir(layout.socketDirectory)
        }
    }

    /// Quotes a value for postgresql.conf, where backslashes are escapes and quotes are doubled.
    private static func configurationString(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''")
    }
}
