import CoreMetrics
import Foundation

/// A group of related tasks sharing one configuration and an optional delegate (SES-06, SES-09).
///
/// The configuration is copied at creation and never changes (SES-11, SES-12). Without a delegate
/// the session decides everything itself: it follows redirects, allows every response (SES-10).
/// When no longer needed, a session is invalidated: `finishTasksAndInvalidate()` lets tasks finish,
/// `invalidateAndCancel()` cancels them; either way the delegate then hears
/// `didBecomeInvalidWithError` and no new task can be made (SES-33).
public final class Session: Sendable {
    public let configuration: SessionConfiguration
    public let delegate: (any SessionDelegate)?
    let scheduler: TaskScheduler
    /// Answers to server-trust and client-certificate challenges, for every task of the session (AU-07).
    let connectionDecisions = ConnectionDecisions()
    /// `.forSession` credentials that worked for this session's tasks (AU-03).
    let keptCredentials = SessionCredentials()
    /// Where each request of the session's tasks is counted and timed.
    let engineMetrics: EngineMetrics
    /// A background session's records of its outstanding tasks (BG-08, BG-12); nil otherwise.
    let backgroundBook: BackgroundTaskBook?
    /// A background session's hold on its identifier and store, released once it is invalid (BG-23).
    private let backgroundClaim: BackgroundSessionClaim?

    /// valid → invalidating (no new tasks; waiting for the last one) → announcing (telling the
    /// delegate, exactly once) → invalid.
    private enum Validity { case valid, invalidating, announcing, invalid }

    private struct State {
        var nextTaskIdentifier = 1
        var tasks: [Int: SessionTask] = [:]
        var validity = Validity.valid
        var invalidationWaiters: [CheckedContinuation<Void, Never>] = []
        /// Delegate drivers still delivering events; invalidation is announced after them.
        var drivers: [Int: Task<Void, Never>] = [:]
        /// Tasks a background session took up from its store when it was made (BG-08).
        var rejoinedTasks: [SessionTask] = []
        var skippedBackgroundEntries: [BackgroundTaskStoreProblem] = []
    }

    private let state = Locked(State())

    /// Creates a session; throws when the configuration has an unusable value, or for a background
    /// configuration when a live session already has its identifier (BG-23, SES-13) or another process
    /// its store. A background session takes up its identifier's outstanding tasks at once: they are
    /// in `rejoinedTasks`, running, and their events go to `delegate` (BG-08, BG-11, BG-13).
    public init(configuration: SessionConfiguration = .default, delegate: (any SessionDelegate)? = nil) throws(ConfigurationError) {
        try configuration.validate()
        if let background = configuration.background {
            backgroundClaim = try BackgroundSessionClaim(identifier: background.identifier, store: background.store)
            backgroundBook = BackgroundTaskBook(settings: background)
        } else {
            backgroundClaim = nil
            backgroundBook = nil
        }
        var configuration = configuration
        if configuration.httpCookieStorage == nil {
            configuration.httpCookieStorage = configuration.kind == .ephemeral ? InMemoryCookieStorage() : InMemoryCookieStorage.shared
        }
        self.configuration = configuration
        self.delegate = delegate
        self.engineMetrics = EngineMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
        self.scheduler = TaskScheduler(configuration: configuration, loops: configuration.loopGroup ?? .shared)
        if let backgroundBook { rejoinOutstandingTasks(with: backgroundBook) }
    }

    /// A shared session with the default configuration and no delegate (SES-07).
    public static let shared: Session = {
        do {
            return try Session(configuration: .default)
        } catch {
            fatalError("the default configuration is invalid: \(error)")
        }
    }()

    // MARK: tasks

    /// The tasks created and not yet completed, by identifier order.
    public var tasks: [SessionTask] {
        state.withLock { $0.tasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    /// Registers a new task; throws once invalidation began, and for a task a background session
    /// cannot make (BG-04), whichever factory asked.
    func register<T: SessionTask>(_ make: (Int) -> T) throws(TransferError) -> T {
        let outcome: Result<T, TransferError> = state.withLock { state in
            guard state.validity == .valid else {
                return .failure(TransferError(.sessionInvalidated, "the session was invalidated; create a new session for new tasks"))
            }
            let task = make(state.nextTaskIdentifier)
            if let refusal = backgroundRefusal(for: task) { return .failure(refusal) }
            state.nextTaskIdentifier += 1
            state.tasks[task.taskIdentifier] = task
            return .success(task)
        }
        let task = try outcome.get()
        if let download = task as? DownloadTask { prepareBackgroundDownload(download) }
        return task
    }

    /// Registers a task taken up from a background store under the identifier it had (BG-08); later
    /// tasks are numbered after it.
    func adopt(identifier: Int, _ make: (Int) -> SessionTask) -> SessionTask {
        state.withLock { state in
            let task = make(identifier)
            state.nextTaskIdentifier = max(state.nextTaskIdentifier, identifier + 1)
            state.tasks[identifier] = task
            state.rejoinedTasks.append(task)
            return task
        }
    }

    func recordSkippedBackgroundEntries(_ problems: [BackgroundTaskStoreProblem]) {
        state.withLock { $0.skippedBackgroundEntries += problems }
    }

    /// The tasks a background session took up from its store when it was made, completed or not, by
    /// identifier (BG-08, BG-11): the seeds' `getAllTasks` of a relaunched app. Empty for other sessions.
    public var rejoinedTasks: [SessionTask] {
        state.withLock { $0.rejoinedTasks }
    }

    /// Entries of the background store that could not be taken up (a damaged record, a request no
    /// background task may make), each with the reason. They were set aside; the others run.
    public var skippedBackgroundEntries: [BackgroundTaskStoreProblem] {
        state.withLock { $0.skippedBackgroundEntries }
    }

    func nextTaskIdentifier() -> Int {
        state.withLock { state in
            defer { state.nextTaskIdentifier += 1 }
            return state.nextTaskIdentifier
        }
    }

    func taskDidComplete(_ task: SessionTask) {
        scheduler.release(task)
        let becameInvalid = state.withLock { state -> Bool in
            state.tasks[task.taskIdentifier] = nil
            return state.validity == .invalidating && state.tasks.isEmpty
        }
        if becameInvalid { becomeInvalid() }
    }

    /// Lets the delegate drive a task's events, when there is a delegate.
    func startDelegateDriver(for task: SessionTask) {
        guard let delegate, delegate.receivesTaskEvents, task.channel.claimConsumer() else { return }
        // Created under the lock, so the driver's own removal (which takes the lock) comes after.
        state.withLock { state in
            state.drivers[task.taskIdentifier] = Task { [self] in
                var delivery = DelegateDelivery(session: self, delegate: delegate, task: task)
                while let event = await task.channel.next() {
                    await delivery.deliver(event)
                }
                // The last of the tasks taken up from the store has told its story (BG-09).
                if let backgroundBook = self.backgroundBook, backgroundBook.eventsDelivered(forTask: task.taskIdentifier) {
                    await delegate.sessionDidFinishEvents(forBackgroundSession: self)
                }
                _ = self.state.withLock { $0.drivers.removeValue(forKey: task.taskIdentifier) }
            }
        }
    }

    // MARK: invalidation (SES-33)

    /// No new tasks; the session becomes invalid once every existing task has completed.
    public func finishTasksAndInvalidate() {
        let invalidNow = state.withLock { state -> Bool in
            guard state.validity == .valid else { return false }
            state.validity = .invalidating
            return state.tasks.isEmpty
        }
        if invalidNow { becomeInvalid() }
    }

    /// Cancels every task and invalidates the session.
    public func invalidateAndCancel() {
        let (tasks, invalidNow) = state.withLock { state -> ([SessionTask], Bool) in
            if state.validity == .valid { state.validity = .invalidating }
            return (Array(state.tasks.values), state.tasks.isEmpty)
        }
        for task in tasks { task.cancel() }
        if invalidNow { becomeInvalid() }
    }

    public var isInvalidated: Bool { state.withLock { $0.validity == .invalid } }

    /// Returns once the session became invalid (after the delegate heard about it). A background
    /// session's store has every change by then: a process may end.
    public func waitUntilInvalidated() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.validity == .invalid { return true }
                state.invalidationWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func becomeInvalid() {
        let drivers = state.withLock { state -> [Task<Void, Never>]? in
            // Only the first caller announces; later ones (a second invalidate, a racing last task) stop here.
            guard state.validity == .invalidating else { return nil }
            state.validity = .announcing
            return Array(state.drivers.values)
        }
        guard let drivers else { return }
        Task { [self] in
            // Every task's last event reaches the delegate before the session's (ER-07, LC-14).
            for driver in drivers { await driver.value }
            if let delegate { await delegate.session(self, didBecomeInvalidWithError: nil) }
            // The store is up to date before another session may take the identifier (BG-23).
            backgroundBook?.flush()
            backgroundClaim?.release()
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.validity = .invalid
                defer { state.invalidationWaiters = [] }
                return state.invalidationWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    // MARK: decisions asked by transfers

    /// The redirect decision now when there is no delegate (RD-04) or the session is a background one,
    /// which always follows without asking (RD-07, BG-04); else nil and `reply` later.
    func redirectDecision(
        for task: SessionTask, response: TransferResponse, proposed: TransferRequest,
        reply: @escaping @Sendable (RedirectDisposition) -> Void
    ) -> RedirectDisposition? {
        guard let delegate, backgroundBook == nil else { return .follow(proposed) }
        Task { reply(await delegate.session(self, task: task, willPerformRedirection: response, newRequest: proposed)) }
        return nil
    }

    /// Whether to load a custom protocol's canonical form of a request (PR-13, RD-06): now when there
    /// is no delegate (follow it), else nil and `reply` later.
    func canonicalRequestDecision(
        for task: SessionTask, canonical: TransferRequest, original: TransferRequest,
        reply: @escaping @Sendable (RedirectDisposition) -> Void
    ) -> RedirectDisposition? {
        guard let delegate else { return .follow(canonical) }
        Task { reply(await delegate.session(self, task: task, willSendCanonicalRequest: canonical, insteadOf: original)) }
        return nil
    }

    /// The response disposition now when there is no delegate, else nil and `reply` later (LC-08).
    /// `afterEarlierEvents`: ask only once the delegate has heard the task's events so far, as for a
    /// later part of a multipart response, whose question must come after the part before's data (LC-10).
    func responseDisposition(
        for task: DataTask, response: TransferResponse, afterEarlierEvents: Bool = false,
        reply: @escaping @Sendable (ResponseDisposition) -> Void
    ) -> ResponseDisposition? {
        guard let delegate else { return .allow }
        let ask: @Sendable () -> Void = {
            _ = Task { reply(await delegate.session(self, dataTask: task, didReceive: response)) }
        }
        if afterEarlierEvents, delegate.receivesTaskEvents {
            task.channel.callWhenConsumerCaughtUp(ask)
        } else {
            ask()
        }
        return nil
    }

    /// A download's response disposition now when the delegate does not decide them (the default),
    /// else nil and `reply` later.
    func downloadResponseDisposition(
        for task: DownloadTask, response: TransferResponse, reply: @escaping @Sendable (ResponseDisposition) -> Void
    ) -> ResponseDisposition? {
        guard let delegate, delegate.decidesDownloadResponses else { return .allow }
        Task { reply(await delegate.session(self, downloadTask: task, didReceive: response)) }
        return nil
    }

    /// The answer to a challenge now when there is no delegate (default handling: AU-09, AU-22, TLS-02),
    /// else nil and `reply` later. Connection-level challenges go to the session-level method first and
    /// to the task-level one when it passes; all others go to the task-level one only (AU-05, AU-06).
    func challengeDisposition(
        for task: SessionTask, challenge: AuthenticationChallenge, reply: @escaping @Sendable (ChallengeDisposition) -> Void
    ) -> ChallengeDisposition? {
        guard let delegate else { return .performDefaultHandling }
        Task {
            if challenge.protectionSpace.authenticationMethod.isConnectionLevel,
               let answer = await delegate.session(self, didReceive: challenge) {
                reply(answer)
                return
            }
            reply(await delegate.session(self, task: task, didReceive: challenge))
        }
        return nil
    }

    /// Asks the delegate whether to store a response (CA-11..CA-14) and returns true: `reply` follows
    /// with the entry to store, or nil. False without a delegate, and in a background session, whose
    /// delegate is never asked (CA-11, BG-22): store the proposal as is.
    func askWillCache(
        _ task: DataTask, proposed: CachedResponse, reply: @escaping @Sendable (CachedResponse?) -> Void
    ) -> Bool {
        guard let delegate, backgroundBook == nil else { return false }
        Task { reply(await delegate.session(self, dataTask: task, willCacheResponse: proposed)) }
        return true
    }

    /// Asks the delegate for a fresh body stream (UP-05); nil without a delegate.
    func newBodyStream(for task: SessionTask, reply: @escaping @Sendable (UploadBody.Stream?) -> Void) {
        guard let delegate else {
            reply(nil)
            return
        }
        Task { reply(await delegate.session(self, taskNeedsNewBodyStream: task)) }
    }

    /// Makes the download task a data task turns into (LC-09); it is already running.
    func convertToDownload(_ dataTask: DataTask, response: TransferResponse, transfer: TaskTransfer) -> DownloadTask {
        let download = DownloadTask(session: self, identifier: nextTaskIdentifier(), request: dataTask.currentRequest)
        download.adoptRunningTransfer(transfer, response: response, progress: dataTask.progress)
        state.withLock { $0.tasks[download.taskIdentifier] = download }
        scheduler.movePlace(from: dataTask, to: download)
        startDelegateDriver(for: download)
        return download
    }
}
