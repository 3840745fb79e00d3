import FerryMetrics
import FerryModel
import FerryStore
import FerryVault
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Tracing

/// Claims jobs and runs up to `workers` of them at once, as a service of ferryd. A worker is free for
/// the next job once its transfer ended; the end's commit follows behind it (`transferEnded`).
///
/// It wakes when PostgreSQL notifies `JobQueue.channel` (a job was submitted, resumed or released) and
/// polls every `pollInterval` besides (retry backoffs end without a notification, and a notification can
/// be missed while reconnecting). It also takes back jobs of workers whose lease expired.
///
/// On graceful shutdown (SIGTERM) it stops claiming, pauses every running transfer with resume data,
/// hands the jobs back to the queue, and returns once all of that is written.
public final class WorkerPool: Service, Sendable {
    public struct Settings: Sendable {
        public var workers: Int
        public var leaseSeconds: Int
        public var retryBaseDelay: Duration
        public var pollInterval: Duration = .seconds(1)
        /// Tenants' storage quota where the tenant has none of its own (`StorageQuota`); nil: unlimited.
        public var maxStorageBytesPerTenant: Int64?

        public init(workers: Int, leaseSeconds: Int, retryBaseDelay: Duration, maxStorageBytesPerTenant: Int64? = nil) {
            self.workers = workers
            self.leaseSeconds = leaseSeconds
            self.retryBaseDelay = retryBaseDelay
            self.maxStorageBytesPerTenant = maxStorageBytesPerTenant
        }

        /// A third of the lease, at most a second: a lease survives two missed beats, and progress
        /// and stop requests are never more than a second old.
        package var heartbeatInterval: Duration { min(.seconds(1), .milliseconds(leaseSeconds * 1000 / 3)) }
    }

    private let queue: JobQueue
    private let engine: JobEngine
    private let files: GatewayFiles
    private let settings: Settings
    private let metrics: GatewayMetrics
    private let decisionCredentials: DecisionCredentials?
    /// Each attempt's span and its hops' (`JobRunner`); nil: none.
    private let tracer: (any Tracer)?
    private let logger: Logger
    /// This process's name in `jobs.lease_owner`: host, pid and a random part (pids are reused).
    public let owner: String

    private let shuttingDown = Atomic<Bool>(false)
    /// Runners whose transfer runs (or is being set up): what `workers` limits.
    private let running = Atomic<Int>(0)
    /// Runners whose transfer ended and whose end is being written, after they freed their worker.
    private let ending = Atomic<Int>(0)
    /// The jobs this process's runners hold now.
    private let runningJobs = Mutex<Set<UUID>>([])
    /// Those of them that are discretionary (BG-05), and the one asked to give its worker back.
    private let discretionary = Mutex<(running: Set<UUID>, yielding: UUID?)>(([], nil))
    private let doorbell = Doorbell()
    /// The clock of every runner's heartbeat.
    private let ticker: HeartbeatTicker
    /// Tenants' storage limits, read once per `StorageLimitCache.lifetime` for all runners.
    private let storageLimits = StorageLimitCache()
    private let partialFiles: PartialFileSweep

    public init(
        queue: JobQueue, engine: JobEngine, files: GatewayFiles, settings: Settings, metrics: GatewayMetrics,
        decisionCredentials: DecisionCredentials? = nil, tracer: (any Tracer)? = nil, logger: Logger
    ) {
        self.queue = queue
        self.engine = engine
        self.files = files
        self.settings = settings
        self.metrics = metrics
        self.decisionCredentials = decisionCredentials
        self.tracer = tracer
        self.logger = logger
        self.owner = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(8).lowercased())"
        self.partialFiles = PartialFileSweep(client: queue.client, files: files, logger: logger)
        self.ticker = HeartbeatTicker(interval: settings.heartbeatInterval)
    }

    public func run() async throws {
        logger.info("workers started", metadata: ["owner": "\(owner)", "workers": "\(settings.workers)"])
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { background in
                background.addTask { await self.listenForWork() }
                background.addTask { await self.takeBackExpiredLeases() }
                background.addTask { await self.ticker.run() }
                await withDiscardingTaskGroup { runners in
                    await self.claimLoop(runners: &runners)
                }
                background.cancelAll()
            }
        } onGracefulShutdown: {
            self.shuttingDown.store(true, ordering: .relaxed)
            self.doorbell.ring()
        }
        logger.info("workers stopped", metadata: ["owner": "\(owner)"])
    }

    /// Graceful shutdown, or the service group cancelling us (another service failed).
    private var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) || Task.isCancelled }

    private func claimLoop(runners: inout DiscardingTaskGroup) async {
        var bell = doorbell.makeListener()
        while !isShuttingDown {
            let free = settings.workers - running.load(ordering: .relaxed)
            var claims: [JobQueue.Claim] = []
            if free > 0 {
                do {
                    claims = try await queue.claim(owner: owner, limit: free, leaseSeconds: settings.leaseSeconds)
                } catch where DatabaseOutage.describes(error) {
                    // Reported once, by the pool; the loop polls on until the database is back.
                } catch {
                    logger.warning("claiming jobs failed", metadata: ["error": LoggedError.metadata(error)])
                }
            }
            for claim in claims {
                running.add(1, ordering: .relaxed)
                runningJobs.withLock { _ = $0.insert(claim.job.id) }
                if claim.job.policies.discretionary == true { discretionary.withLock { _ = $0.running.insert(claim.job.id) } }
                let runner = makeRunner(for: claim)
                runners.addTask {
                    let freedEarly = await runner.run()
                    if freedEarly {
                        self.ending.subtract(1, ordering: .relaxed)
                    } else {
                        self.freeWorker(of: claim.job.id)
                    }
                    // Its lease is this process's until the end is written: not one to take back.
                    self.runningJobs.withLock { _ = $0.remove(claim.job.id) }
                }
            }
            // A full batch means more may be waiting: claim again at once.
            if free > 0, claims.count == free { continue }
            if free <= 0 { await makeRoomForWaitingJobs() }
            await bell.wait(atMost: settings.pollInterval)
        }
    }

    /// A runner's transfer ended and only its end remains to be written: its worker takes the next
    /// job while the end waits for its commit (`JobEndWriter` gathers the ends of many workers in one),
    /// unless `workers` ends are being written already (a slow database then slows the claims as well).
    /// Returns whether the worker was freed.
    private func transferEnded(of job: UUID) -> Bool {
        guard ending.add(1, ordering: .relaxed).newValue <= settings.workers else {
            ending.subtract(1, ordering: .relaxed)
            return false
        }
        freeWorker(of: job)
        return true
    }

    private func freeWorker(of job: UUID) {
        discretionary.withLock { state in
            state.running.remove(job)
            if state.yielding == job { state.yielding = nil }
        }
        running.subtract(1, ordering: .relaxed)
        doorbell.ring()
    }

    /// With every worker busy, some with discretionary jobs, and a job that is not discretionary
    /// waiting: one discretionary job gives its worker back at its next heartbeat, with resume data,
    /// and goes back to the queue behind the waiting one (BG-05, BG-17). One at a time: the next is
    /// asked only once that one has gone.
    private func makeRoomForWaitingJobs() async {
        let candidate = discretionary.withLock { $0.yielding == nil ? $0.running.first : nil }
        guard let candidate else { return }
        do {
            guard try await queue.nonDiscretionaryJobWaits() else { return }
        } catch {
            if !DatabaseOutage.describes(error) { logger.warning("checking for waiting jobs failed", metadata: ["error": LoggedError.metadata(error)]) }
            return
        }
        discretionary.withLock { state in
            if state.yielding == nil, state.running.contains(candidate) { state.yielding = candidate }
        }
        logger.info("a discretionary job gives its worker to a waiting job", metadata: ["job": "\(candidate)"])
    }

    private func makeRunner(for claim: JobQueue.Claim) -> JobRunner {
        JobRunner(
            claim: claim, queue: queue, engine: engine, files: files, owner: owner, leaseSeconds: settings.leaseSeconds,
            heartbeatInterval: settings.heartbeatInterval, ticker: ticker, resumeDataEveryBeats: 3, retryBaseDelay: settings.retryBaseDelay,
            metrics: metrics, decisionCredentials: decisionCredentials,
            storageQuota: StorageQuota(
                client: queue.client, defaultLimit: settings.maxStorageBytesPerTenant, limits: storageLimits, logger: logger),
            isShuttingDown: { [weak self] in self?.shuttingDown.load(ordering: .relaxed) ?? true },
            shouldYield: { [weak self, id = claim.job.id] in self?.discretionary.withLock { $0.yielding == id } ?? false },
            transferEnded: { [weak self, id = claim.job.id] in self?.transferEnded(of: id) ?? false },
            tracer: tracer, logger: logger)
    }

    /// LISTENs on the job channel on a connection of its own, reconnecting after failures.
    private func listenForWork() async {
        while !Task.isCancelled {
            do {
                try await queue.listenForWork { self.doorbell.ring() }
            } catch {
                if Task.isCancelled { return }
                // An outage is reported once, by the pool.
                if !DatabaseOutage.describes(error) {
                    logger.warning("listening for jobs failed; polling until it works again", metadata: ["error": LoggedError.metadata(error)])
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// How often partial files are swept besides on start and after a takeover: jobs cancelled or
    /// failed while no worker held them leave theirs too.
    static let sweepInterval = Duration.seconds(300)

    /// Takes back expired leases, and removes partial files no job holds: on start (a killed ferryd
    /// left them), after every takeover (the dead or stopped worker's files), and every few minutes.
    private func takeBackExpiredLeases() async {
        let interval = Duration.milliseconds(max(500, settings.leaseSeconds * 1000 / 2))
        var sweepDue = true
        var lastSweep = ContinuousClock.now
        while !Task.isCancelled {
            // After an outage, the leases of every worker (this process's and others') ran out while
            // none could renew them: give them one lease to renew before any is taken back.
            guard queue.client.hasBeenAvailable(for: .seconds(settings.leaseSeconds)) else {
                try? await Task.sleep(for: interval)
                continue
            }
            do {
                let taken = try await queue.takeBackExpiredLeases(
                    owner: owner, running: runningJobs.withLock { Array($0) }, leaseSeconds: settings.leaseSeconds)
                if taken > 0 { logger.info("took back jobs whose worker stopped renewing its lease", metadata: ["jobs": "\(taken)"]) }
                if sweepDue || taken > 0 || ContinuousClock.now - lastSweep >= Self.sweepInterval {
                    try await partialFiles.run()
                    sweepDue = false
                    lastSweep = ContinuousClock.now
                }
                let overdue = try await queue.failOverdueDecisions()
                for case let file? in overdue { unlink(file) }
                metrics.jobFinished(state: .failed, errorCode: JobQueue.decisionTimedOut, count: overdue.count)
                if !overdue.isEmpty { logger.info("failed jobs whose decision was not answered in time", metadata: ["jobs": "\(overdue.count)"]) }
            } catch {
                if Task.isCancelled { return }
                if !DatabaseOutage.describes(error) {
                    logger.warning("taking back expired leases failed", metadata: ["error": LoggedError.metadata(error)])
                }
            }
            try? await Task.sleep(for: interval)
        }
    }
}
