import FerryMetrics
import FerryModel
import FerryStore
import FerryVault
import Foundation
import Logging
import Tracing
import URLLoading

/// Runs one claimed job's attempt through the engine and writes how it ended.
///
/// Every kind runs as an engine download task, so every response body goes to a file (and can be
/// fetched from `/v1/jobs/{id}/content`): a download continues from the job's resume data when it
/// has some; an upload sends its body (inline, a blob, or another job's content) with the request.
///
/// While the transfer runs, a heartbeat every `heartbeatInterval` renews the lease, stores progress
/// and, every few beats, resume data (so a killed ferryd costs at most that much), and reads stop
/// requests; it also stops the transfer for shutdown and for the job's total timeout.
///
/// A class: every async frame of the attempt (the runner's and its heartbeat's) holds a reference,
/// not its own copy of the claim and the settings (a thousand running jobs, bench P5).
final class JobRunner: Sendable {
    let claim: JobQueue.Claim
    let queue: JobQueue
    let engine: JobEngine
    let files: GatewayFiles
    let owner: String
    let leaseSeconds: Int
    let heartbeatInterval: Duration
    /// Wakes the heartbeat every `heartbeatInterval`, for every runner of the pool at once.
    let ticker: HeartbeatTicker
    /// Resume data is stored every this many heartbeats.
    let resumeDataEveryBeats: Int
    let retryBaseDelay: Duration
    let metrics: GatewayMetrics
    /// Opens the credentials of answered decisions; nil when ferryd has no vault key.
    let decisionCredentials: DecisionCredentials?
    /// The tenant's storage quota, which the attempt's content must fit in.
    let storageQuota: StorageQuota
    let isShuttingDown: @Sendable () -> Bool
    /// True when the pool wants this (discretionary) job's worker for another job (BG-05).
    let shouldYield: @Sendable () -> Bool
    /// Tells the pool that the transfer ended and only the end's write remains; true when the pool
    /// freed the worker for its next job.
    let transferEnded: @Sendable () -> Bool
    /// A span for the attempt, with the engine's hops under it; nil: none.
    let tracer: (any Tracer)?
    let logger: Logger

    init(
        claim: JobQueue.Claim, queue: JobQueue, engine: JobEngine, files: GatewayFiles, owner: String, leaseSeconds: Int,
        heartbeatInterval: Duration, ticker: HeartbeatTicker, resumeDataEveryBeats: Int, retryBaseDelay: Duration,
        metrics: GatewayMetrics, decisionCredentials: DecisionCredentials?, storageQuota: StorageQuota,
        isShuttingDown: @escaping @Sendable () -> Bool, shouldYield: @escaping @Sendable () -> Bool = { false },
        transferEnded: @escaping @Sendable () -> Bool = { false }, tracer: (any Tracer)? = nil, logger: Logger
    ) {
        self.claim = claim
        self.queue = queue
        self.engine = engine
        self.files = files
        self.owner = owner
        self.leaseSeconds = leaseSeconds
        self.heartbeatInterval = heartbeatInterval
        self.ticker = ticker
        self.resumeDataEveryBeats = resumeDataEveryBeats
        self.retryBaseDelay = retryBaseDelay
        self.metrics = metrics
        self.decisionCredentials = decisionCredentials
        self.storageQuota = storageQuota
        self.isShuttingDown = isShuttingDown
        self.shouldYield = shouldYield
        self.transferEnded = transferEnded
        self.tracer = tracer
        self.logger = logger
    }

    var job: JobRecord { claim.job }
    /// Whose engine session the job runs in, and so whose credentials, cookie jar and cache it uses.
    var sessionOwner: EngineSessionOwner {
        EngineSessionOwner(tenantID: job.tenantID, sessionID: job.sessionID, isEphemeral: claim.sessionKind == "ephemeral")
    }

    /// Returns whether the pool freed the worker before the end was written (`transferEnded`).
    func run() async -> Bool {
        guard let span = startAttemptSpan() else { return await attempt(span: nil) }
        // The attempt's database calls are the span's children.
        return await ServiceContext.$current.withValue(span.context) { await attempt(span: span) }
    }

    private func attempt(span: (any Span)?) async -> Bool {
        let transfer = RunningTransfer()
        let started = ContinuousClock.now
        metrics.attemptStarted(kind: job.kind, attempt: job.attempt)
        let completion = await transferred(transfer, span: span)
        recordMetrics(of: completion, transfer: transfer, started: started)
        do {
            // Before the end is recorded: the session's next job, on any ferryd, must find the cookies
            // this one was given and the responses it cached.
            try await engine.settle(for: sessionOwner)
        } catch {
            warnUnsettled(error)
        }
        if let span { endAttemptSpan(span, completion: completion) }
        guard let completion else { return false }
        let freed = transferEnded()
        if await recordEnd(completion), completion.state.isTerminal {
            metrics.jobFinished(state: completion.state, errorCode: completion.errorCode)
            removeInheritedPartialFile()
        }
        return freed
    }

    /// The attempt's transfer, from making its task to judging how it ended; nil when the lease was lost.
    /// The synchronous steps around it are out of line, as `outcome`'s are: a task keeps the memory
    /// of its deepest async frames until it ends.
    private func transferred(_ transfer: RunningTransfer, span: (any Span)?) async -> JobQueue.Completion? {
        do {
            transfer.storageQuota = try await storageStanding()
            let (task, decisions) = try await makeTask()
            let completion = await drive(task, decisions: decisions, transfer: transfer)
            if let span { recordHopSpans(of: task, under: span) }
            // Its own session (asking for decisions) served this attempt only.
            if decisions != nil { task.session.finishTasksAndInvalidate() }
            return completion
        } catch {
            return failedBeforeTransfer(error, transfer: transfer)
        }
    }

    @inline(never)
    private func failedBeforeTransfer(_ error: any Error, transfer: RunningTransfer) -> JobQueue.Completion {
        let failure = error as? AttemptFailure ?? AttemptFailure("internal_error", "\(error)")
        return finished(failure, transfer: transfer, response: nil, resumeData: nil)
    }

    @inline(never)
    private func recordHopSpans(of task: DownloadTask, under span: any Span) {
        guard let tracer else { return }
        EngineHopSpans.record(task.metrics, method: job.request.method, under: span.context, tracer: tracer)
    }

    @inline(never)
    private func recordMetrics(of completion: JobQueue.Completion?, transfer: RunningTransfer, started: ContinuousClock.Instant) {
        metrics.attemptFinished(
            kind: job.kind, tenant: job.tenantID, outcome: completion?.attemptOutcome ?? "lease_lost", duration: ContinuousClock.now - started,
            bytesReceived: (completion?.progress.bytesDone ?? transfer.progress.bytesReceived) - job.bytesDone,
            bytesSent: transfer.progress.bytesSent)
    }

    @inline(never)
    private func warnUnsettled(_ error: any Error) {
        logger.warning("could not write the job's cookies or cache entries", metadata: ["job": "\(job.id)", "error": LoggedError.metadata(error)])
    }

    /// The job is over: the partial file its resume data named when this attempt took it up goes
    /// too, whoever wrote it. This attempt continued in it (and moved or removed it already) or, when
    /// a stopped worker still held it, in a copy; that worker's file is left to nobody otherwise.
    @inline(never)
    private func removeInheritedPartialFile() {
        guard let text = job.resumeData, let inherited = try? ResumeData(jsonData: Data(text.utf8)) else { return }
        inherited.removePartialFile()
    }

    struct AttemptFailure: Error {
        var code: String
        var message: String
        var retry: RetryPolicy.AttemptFailure?
        var httpStatus: Int?

        init(_ code: String, _ message: String, retry: RetryPolicy.AttemptFailure? = nil, httpStatus: Int? = nil) {
            self.code = code
            self.message = message
            self.retry = retry
            self.httpStatus = httpStatus
        }
    }

    // MARK: - Making the task

    /// The tenant's storage standing now: the content this attempt may write (`StorageQuota`), the
    /// bytes the job itself expects (BG-19) being its own room.
    private func storageStanding() async throws -> StorageQuota.Standing? {
        do {
            return try await storageQuota.standing(tenant: job.tenantID)?.excludingReservation(of: job.policies.expectedBytes)
        } catch {
            throw AttemptFailure("storage_unavailable", "the tenant's storage quota could not be read: \(error)", retry: .gatewayStorage)
        }
    }

    /// The failure of an attempt whose content (`bytes`, when known) does not fit in `standing`.
    static func quotaFailure(_ standing: StorageQuota.Standing, bytes: Int64?) -> AttemptFailure {
        let refusal = StorageQuota.exceeded(standing, adding: bytes, what: "the job's content")
        return AttemptFailure(refusal.code, refusal.detail)
    }

    /// The attempt's task, and the delegate that makes its decisions when the job asks for any.
    ///
    /// Its synchronous steps are out of line, as `outcome`'s are: a task keeps the memory of its
    /// deepest async frames until it ends.
    private func makeTask() async throws -> (DownloadTask, JobDecisionMaker?) {
        let (request, decisions) = try requestAndDecisionMaker()
        do {
            try await engine.prepare(for: sessionOwner, stored: claim.stored)
        } catch {
            // Without it the job would run with a stale jar (no login cookie): better later than wrong.
            throw AttemptFailure(
                "storage_unavailable", "the session's cookie jar or the tenant's cache index could not be read: \(error)",
                retry: .gatewayStorage)
        }
        let session = try engineSession(decisions: decisions)
        let directory = try jobDirectory()
        let task = try await downloadTask(in: session, request: request)
        configure(task, directory: directory)
        return (task, decisions)
    }

    @inline(never)
    private func requestAndDecisionMaker() throws -> (TransferRequest, JobDecisionMaker?) {
        if let reason = claim.unopenableSecret {
            // Sent without its header or proxy password the request would be another one: fail it.
            throw AttemptFailure("secret_unopenable", "a secret sealed in the job or its session does not open: \(reason)")
        }
        guard let url = URL(string: job.request.url) else { throw AttemptFailure("invalid_request", "the job's URL cannot be parsed") }
        let settings = claim.session ?? SessionSettings()
        var headers = HTTPHeaders()
        // The session's headers first, unless the job sets the same field (as the seeds' additional headers).
        for header in settings.additionalHeaders where !job.request.headers.contains(where: { $0.name.lowercased() == header.name.lowercased() }) {
            headers.add(name: header.name, value: header.value)
        }
        for header in job.request.headers { headers.add(name: header.name, value: header.value) }
        var request = TransferRequest(
            url: url, method: job.request.method, headers: headers, timeoutInterval: job.policies.idleTimeout ?? settings.idleTimeout)
        // The job's policy, else its session's; validated on the way in (CA-05, SES-26).
        request.cachePolicy = (job.policies.cachePolicy ?? settings.cachePolicy).flatMap(RequestCachePolicy.init(apiName:))
        // A job may keep its requests out of its session's jar (CK-02).
        request.httpShouldHandleCookies = job.policies.cookies ?? true
        if case .inline(let data)? = job.request.body { request.body = data }

        let decisionPolicy = (job.policies.decisions ?? DecisionPolicy()).over(settings.decisions)
        let decisions = decisionPolicy.asksAnything
            ? JobDecisionMaker(
                policy: decisionPolicy, answers: claim.decisionAnswers, credentials: decisionCredentials, tenant: job.tenantID, job: job.id,
                request: url)
            : nil
        return (request, decisions)
    }

    @inline(never)
    private func engineSession(decisions: JobDecisionMaker?) throws -> Session {
        let settings = claim.session ?? SessionSettings()
        do {
            let key = JobEngine.Key(
                owner: sessionOwner, settings: settings.engineKey(maxRedirects: job.policies.followRedirects ? job.policies.maxRedirects : 0))
            return try decisions.map { try engine.attemptSession(for: key, delegate: $0) } ?? engine.session(for: key)
        } catch {
            throw AttemptFailure("internal_error", "the engine session could not be made: \(error)")
        }
    }

    @inline(never)
    private func jobDirectory() throws -> URL {
        try files.makeDirectory(files.jobDirectory(tenant: job.tenantID))
        return URL(fileURLWithPath: files.absolute(files.jobDirectory(tenant: job.tenantID)) ?? files.dataDirectory, isDirectory: true)
    }

    /// Where the attempt's task starts from.
    private enum TaskStart {
        case request
        case upload(URL)
        case resume(ResumeData)
    }

    private func downloadTask(in session: Session, request: TransferRequest) async throws -> DownloadTask {
        let start: TaskStart
        switch job.request.body {
        case .inline?:
            start = .request
        case let body?:
            guard let relative = try await queue.bodyFile(for: body, tenant: job.tenantID), let path = files.absolute(relative) else {
                throw AttemptFailure("body_unavailable", "the job's body (a blob or another job's content) no longer exists")
            }
            start = .upload(URL(fileURLWithPath: path))
        case nil:
            if let stored = storedResumeData() {
                // The stored resume data may be a few seconds older than the file (a killed
                // ferryd wrote on until it died): continue after everything it wrote.
                start = .resume(await Self.offTheCooperativePool { stored.coveringWholePartialFile() })
            } else {
                start = .request
            }
        }
        return try Self.downloadTask(in: session, request: request, from: start)
    }

    @inline(never)
    private func storedResumeData() -> ResumeData? {
        job.resumeData.flatMap { try? ResumeData(jsonData: Data($0.utf8)) }
    }

    @inline(never)
    private static func downloadTask(in session: Session, request: TransferRequest, from start: TaskStart) throws -> DownloadTask {
        do {
            switch start {
            case .request: return try session.downloadTask(with: request)
            case .upload(let file): return try session.downloadTask(with: request, uploading: .file(file))
            case .resume(let resumeData): return try session.downloadTask(withResumeData: resumeData)
            }
        } catch {
            throw AttemptFailure(error.code.rawValue, error.message)
        }
    }

    private func configure(_ task: DownloadTask, directory: URL) {
        task.temporaryDirectory = directory
        task.spareFiles = files.spares
        // result.sha256 and checksum.sha256: hashed beside the writes, off the engine's loop.
        task.computesSHA256 = true
        // The origin's own bytes unless the job asked otherwise: a decoded body could not be resumed.
        task.acceptsCompressedContent = job.policies.compressed ?? false
        // Named for this attempt, so that a sweep can tell when nothing holds them any more.
        task.temporaryFilePrefix = PartialFileName(job: job.id, attempt: job.attempt).prefix
    }

    /// Runs blocking file work (reading a partial file of gigabytes) on a thread of its own.
    static func offTheCooperativePool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    // MARK: - Running it

    /// What the event loop found.
    struct Observed {
        var response: TransferResponse?
        var placed: JobRecord.StoredResult?
        var placeFailure: AttemptFailure?
        /// The parts of a multipart/x-mixed-replace response that ended (LC-10); 0 for any other.
        var parts = 0
        /// Which of them get a `job.part` event.
        var partEvents = PartEventPace()
    }

    private func drive(_ task: DownloadTask, decisions: JobDecisionMaker?, transfer: RunningTransfer) async -> JobQueue.Completion? {
        let events = task.events
        let heartbeat = Task { await beat(task, transfer: transfer) }
        var observed = Observed()
        task.resume()
        // Cancelled from outside (the service group is going down hard): stop as for a shutdown.
        await withTaskCancellationHandler {
            await collect(events, of: task, into: &observed, transfer: transfer)
        } onCancel: {
            stop(task, transfer: transfer, reason: .shutdown)
        }
        heartbeat.cancel()
        return await outcome(of: task, observed: observed, decisions: decisions, transfer: transfer)
    }

    private func collect(_ events: TaskEvents, of task: DownloadTask, into observed: inout Observed, transfer: RunningTransfer) async {
        for await event in events {
            switch event {
            case .progress(let value):
                transfer.progress = value
            case .response(let response):
                observed.response = response
            case .partCompleted(let index, let response, let length):
                // The file holds the latest part only (the engine writes each over the one before).
                observed.parts = index
                if observed.partEvents.records(part: index) { await recordPart(index: index, response: response, length: length) }
            case .downloadFinished(let file):
                // The engine deletes `file` when the next event is asked for: judge and place it now.
                if let response = task.response, response.isSuccess {
                    // A worker stopped past its lease must not put its file where the job's new
                    // worker puts (or has put) the content; its own file goes with the engine.
                    guard await stillHoldsLease(transfer) else {
                        _ = transfer.requestStop(.leaseLost)
                        continue
                    }
                    switch place(file, task: task, response: response, parts: observed.parts, transfer: transfer) {
                    case .success(let result): observed.placed = result
                    case .failure(let failure): observed.placeFailure = failure
                    }
                }
            default:
                break
            }
        }
    }

    /// A `job.part` event for a part that ended, with its headers redacted as every view redacts
    /// them. A failure to write it is logged, not fatal: the content and `result.parts` still say
    /// what the job got.
    private func recordPart(index: Int, response: TransferResponse, length: Int64) async {
        let headers = JobView.redacted(response.headers.map { JobSpecification.Header(name: $0.name, value: $0.value) })
        do {
            try await queue.recordPart(
                job: job.id, attempt: job.attempt, owner: owner, part: JobPartView(index: index, headers: headers, size: length))
        } catch {
            logger.warning("could not record a job.part event", metadata: ["job": "\(job.id)", "part": "\(index)", "error": LoggedError.metadata(error)])
        }
    }

    /// Whether this worker still holds the job. Within two thirds of a lease since it was last renewed
    /// it surely does (no query); later (this process was stopped, or its heartbeats failed) the
    /// database is asked, by renewing it. When the database cannot answer, the file is placed: its end
    /// is then written only if the lease still holds.
    private func stillHoldsLease(_ transfer: RunningTransfer) async -> Bool {
        guard ContinuousClock.now - transfer.leaseRenewedAt >= .seconds(leaseSeconds) * 2 / 3 else { return true }
        let progress = transfer.progress
        let asked = ContinuousClock.now
        do {
            let answer = try await queue.heartbeat(
                job: job.id, attempt: job.attempt, owner: owner, leaseSeconds: leaseSeconds,
                progress: JobQueue.Progress(bytesDone: progress.bytesReceived, bytesExpected: progress.totalBytesExpectedToReceive, bytesPerSecond: nil),
                resumeData: nil)
            guard answer != .leaseLost else {
                logger.info("a worker whose lease was taken over left the job to its new worker", metadata: ["job": "\(job.id)"])
                return false
            }
            transfer.leaseRenewedAt = asked
            return true
        } catch {
            logger.warning("could not check the job's lease before storing its content", metadata: ["job": "\(job.id)", "error": LoggedError.metadata(error)])
            return true
        }
    }

    /// Renames the finished file into place after checking its SHA-256 (computed while writing) and
    /// that it fits in the tenant's storage quota.
    /// `parts`: how many parts a multipart response had (0: it was no multipart response).
    @inline(never)
    private func place(
        _ file: URL, task: DownloadTask, response: TransferResponse, parts: Int, transfer: RunningTransfer
    ) -> Result<JobRecord.StoredResult, AttemptFailure> {
        guard let digest = task.sha256, let size = task.fileLength else {
            return .failure(AttemptFailure("internal_error", "the engine gave no digest for the file"))
        }
        if let expected = job.policies.sha256, expected != digest {
            return .failure(AttemptFailure("checksum_mismatch", "the content's SHA-256 is \(digest), not the expected \(expected)"))
        }
        if let quota = transfer.storageQuota, size > quota.allowance { return .failure(Self.quotaFailure(quota, bytes: size)) }
        let relative = files.jobContent(tenant: job.tenantID, job: job.id)
        guard let destination = files.absolute(relative), rename(file.path, destination) == 0 else {
            return .failure(AttemptFailure("cannot_write_file", "cannot store the content: \(String(cString: strerror(errno)))"))
        }
        return .success(JobRecord.StoredResult(
            file: relative, size: size, sha256: digest, contentType: response.mimeType, cache: response.cacheStatus?.rawValue,
            parts: parts > 0 ? parts : nil))
    }

    /// The heartbeat loop: wakes at each tick of the pool's `ticker` (every `heartbeatInterval`),
    /// stops the transfer on shutdown or at the total timeout's deadline, and talks to the database.
    /// A SIGTERM's pause waits for the next tick, at most `heartbeatInterval`.
    private func beat(_ task: DownloadTask, transfer: RunningTransfer) async {
        let started = ContinuousClock.now
        let deadline = job.policies.totalTimeout.map { started + .milliseconds(Int64($0 * 1000)) }
        var lastBeat = started
        var lastBytes: Int64 = transfer.progress.bytesReceived
        var beats = 0
        var rate: Int64?
        while !Task.isCancelled {
            if let deadline, transfer.stopReason == nil, deadline < .now + heartbeatInterval {
                // A total timeout due before the next tick has a timer of its own.
                try? await Task.sleep(until: deadline, clock: .continuous)
            } else if await !ticker.nextTick() {
                // The pool's ticker has stopped (a hard shutdown): a timer of its own until the end.
                try? await Task.sleep(for: heartbeatInterval)
            }
            if Task.isCancelled { return }
            if isShuttingDown() {
                stop(task, transfer: transfer, reason: .shutdown)
            } else if shouldYield() {
                stop(task, transfer: transfer, reason: .yield)
            }
            if let deadline, ContinuousClock.now >= deadline {
                stop(task, transfer: transfer, reason: .totalTimeout)
            }
            let now = ContinuousClock.now
            // A job that started just before this tick beats at the next one.
            guard now - lastBeat >= heartbeatInterval / 2, transfer.stopReason == nil else { continue }
            let progress = transfer.progress
            let elapsed = Double((now - lastBeat).components.seconds) + Double((now - lastBeat).components.attoseconds) / 1e18
            // Never negative: each part of a multipart response counts its bytes from 0 again (LG-05).
            if elapsed > 0 { rate = max(0, Int64(Double(progress.bytesReceived - lastBytes) / elapsed)) }
            let moved = progress.bytesReceived != lastBytes
            lastBeat = now
            lastBytes = progress.bytesReceived
            beats += 1
            var resumeText: String?
            if beats % resumeDataEveryBeats == 0, let snapshot = await task.resumeDataSnapshot() {
                resumeText = Self.text(of: snapshot)
            }
            let stored = JobQueue.Progress(bytesDone: progress.bytesReceived, bytesExpected: progress.totalBytesExpectedToReceive, bytesPerSecond: rate)
            let answer: JobQueue.HeartbeatAnswer
            let asked = ContinuousClock.now
            do {
                answer = try await queue.heartbeat(
                    job: job.id, attempt: job.attempt, owner: owner, leaseSeconds: leaseSeconds, progress: stored, resumeData: resumeText,
                    announcingTo: moved ? job.tenantID : nil)
                if answer != .leaseLost { transfer.leaseRenewedAt = asked }
            } catch {
                // The database is away: keep transferring; the lease is not taken back until its
                // worker had time to renew it after the database's return (`WorkerPool`).
                warnHeartbeatFailed(error)
                continue
            }
            switch answer {
            case .carryOn: break
            case .stopRequested("cancel"): stop(task, transfer: transfer, reason: .cancel)
            case .stopRequested: stop(task, transfer: transfer, reason: .pause)
            case .leaseLost: stop(task, transfer: transfer, reason: .leaseLost)
            }
        }
    }

    // Out of line, as `outcome` is: the heartbeat's task keeps its frames while the job runs.
    @inline(never)
    private static func text(of resumeData: ResumeData) -> String? {
        (try? resumeData.jsonData()).map { String(decoding: $0, as: UTF8.self) }
    }

    @inline(never)
    private func warnHeartbeatFailed(_ error: any Error) {
        if !DatabaseOutage.describes(error) {
            logger.warning("heartbeat failed", metadata: ["job": "\(job.id)", "error": LoggedError.metadata(error)])
        }
    }

    private func stop(_ task: DownloadTask, transfer: RunningTransfer, reason: RunningTransfer.StopReason) {
        guard transfer.requestStop(reason) else { return }
        if reason == .cancel {
            task.cancel()
        } else {
            // Keeps the partial file and puts resume data in the task's error.
            task.cancel(producingResumeData: { _ in })
        }
    }
}
