import Foundation

/// Runs one task on a loop: its first request and every hop after it (TT-06), in the order
/// `TransferStateMachine` gives, with curl's part in `CurlTransfer`.
///
/// Loop-confined: every method runs on `loop`'s thread (curl's callbacks, and closures sent with
/// `post`). The task is thread-safe. Decisions the caller owns (redirect, response disposition, a
/// challenge, a new body stream, will-cache) are asked through the session; the transfer stays paused
/// until they are answered, however late (AU-21, LC-16). A session without a delegate answers at once,
/// with no pause.
final class TaskTransfer: @unchecked Sendable {
    let loop: CurlLoop
    private(set) var role: TransferRole
    /// `role`'s task, kept apart for the body's path.
    private(set) var task: SessionTask
    let configuration: SessionConfiguration
    var machine: TransferStateMachine
    private(set) lazy var curl = CurlTransfer(loop: loop, configuration: configuration, events: self)

    var request: TransferRequest
    /// The response of the current hop, once its head arrived.
    var hopResponse: TransferResponse?
    private let resourceDeadline: UInt64

    var body: RequestBodyReader?
    var sink = ResponseSink.none
    /// A download's file, made off the loop while the request is under way.
    var filePreparation = DownloadFilePreparation.none
    var bytesReceived: Int64 = 0
    private var lastProgressEvent: UInt64 = 0
    private var lastProgressSent = TransferProgress()
    /// What `curlUploadProgressed` last wrote into the task's progress; nil before its first call.
    var reportedUpload: (sent: Int64, expected: Int64?)?
    var resumption: DownloadResumption

    /// This hop's part in its TLS handshakes, when curl's own handling is not all it needs.
    var tlsHook: TLSHandshakeHook?
    /// Connection-level challenges this task asked the delegate; each space is asked at most once (TLS-01, TLS-11).
    var connectionChallengesAsked: Set<ProtectionSpace> = []

    // Cookies and the HTTP cache, on every hop (CK-02, CK-03, CA-05..CA-12).
    let cookies: TransferCookies
    var caching: TransferCaching
    /// A body Ferry has itself (a data: URL's, a cached entry's): written when the hop completes.
    var localBody: LocalBody?
    // Authentication challenges (AU-08 ... AU-25).
    var authentication: TaskAuthentication
    /// The hop a custom protocol loads instead of curl (PR-04), while it runs.
    var protocolHop: ProtocolHop?
    /// The request the delegate settled on when a protocol offered its canonical form (RD-06): not asked again.
    var settledCanonicalRequest: TransferRequest?
    /// The parts of a multipart/x-mixed-replace response, each delivered as a response (LC-10, LG-05).
    var multipart: MultipartReplaceParser?
    /// The rest of a write whose part head is being decided on (its disposition), taken once answered.
    var heldPartBytes = Data()

    init(task: SessionTask, loop: CurlLoop, configuration: SessionConfiguration) {
        self.role = task.transferRole
        self.task = task
        self.loop = loop
        self.configuration = configuration
        self.machine = TransferStateMachine(maximumRedirects: configuration.maximumRedirects)
        self.request = task.currentRequest
        let now = CurlLoop.nowMilliseconds()
        // A background task's deadline counts from its first start, across retries and processes (BG-06).
        let remaining = task.backgroundDeadline.map { max(0, $0.timeIntervalSinceNow) } ?? configuration.resourceTimeout
        self.resourceDeadline = now + CurlRequestOptions.milliseconds(min(remaining, configuration.resourceTimeout))
        // The first progress event comes a tick after the start, not with the first byte: a small
        // body is whole by then, and its one event is the last (forced) one.
        self.lastProgressEvent = now
        self.resumption = DownloadResumption(source: role.resumeSource)
        self.cookies = TransferCookies(configuration: configuration)
        self.caching = TransferCaching(configuration: configuration)
        self.authentication = TaskAuthentication(maximumFailures: configuration.maximumAuthenticationFailures)
    }

    /// Runs `work` on the loop thread with this transfer.
    func post(_ work: @escaping @Sendable (TaskTransfer) -> Void) {
        loop.execute { [self] in work(self) }
    }

    // MARK: - Starting

    func start(paused: Bool) {
        machine.start(paused: paused)
        do {
            body = try RequestBodyReader.make(sending: role.sentBody, request: request)
        } catch {
            finish(error: error)
            return
        }
        // A custom protocol that takes data: URLs loads them in `startHop` (PR-04).
        if request.url.scheme?.lowercased() == "data", customLoader(for: request) == nil {
            runDataURL()
        } else if let source = resumption.source {
            reopenPartialFile(of: source)
        } else {
            prepareDownloadFile()
            startHop()
        }
    }

    func startHop() {
        guard machine.hopStarting(request) else { return }
        hopResponse = nil
        localBody = nil
        multipart = nil
        heldPartBytes = Data()
        if let loader = customLoader(for: request) {
            startProtocolHop(loader)
            return
        }
        let sent: TransferRequest
        switch caching.plan(for: request, eligible: body == nil && resumption.source == nil) {
        case .serve(let entry, let body, let status, let revalidation):
            if let revalidation { BackgroundRevalidation.start(revalidation, configuration: configuration) }
            var response = entry.response
            response.cacheStatus = status
            serveFromCache(response, body: body)
            return
        case .fail(let error):
            finish(error: error)
            return
        case .network(let planned):
            sent = cookies.adding(to: planned)
        }
        tlsHook = nil
        do {
            let tls = try TLSHandshakeHook.settings(for: request, session: task.session)
            tlsHook = tls?.hook
            let tunnels = CurlRequestOptions.tunnels(request.url, configuration: configuration)
            try curl.startHop(CurlTransfer.Hop(
                request: authentication.authorizing(sent), body: body, remainingMilliseconds: remainingResourceTime(),
                proxyHeaderLines: tunnels ? authentication.tunnelProxyHeaderLines(for: request.url) : [], tls: tls,
                acceptsCompressedContent: role.download?.acceptsCompressedContent ?? configuration.acceptsCompressedContent))
        } catch {
            finish(error: error)
            return
        }
        machine.hopRunning(
            idleTimeout: CurlRequestOptions.idleTimeout(request: request, configuration: configuration),
            now: CurlLoop.nowMilliseconds())
        perform(.applyPause(machine.pause))
    }

    // MARK: - Control (posted by the task)

    func setUserPaused(_ paused: Bool) {
        perform(machine.setUserPaused(paused))
    }

    func cancel() {
        perform(machine.cancel(url: task.originalRequest.url))
    }

    // MARK: - Carrying out the machine's actions

    func perform(_ action: TransferStateMachine.Action) {
        switch action {
        case .none, .write, .discard, .pauseReceiving, .abort, .dropHop:
            // What to do with body bytes is answered in the write callback itself.
            break
        case .applyPause(let pause):
            if protocolHop != nil {
                takeProtocolReports()
            } else {
                curl.hold(receiving: pause.contains(.receive), sending: pause.contains(.send))
            }
        case .deliverResponse:
            // ftp and file transfers with an empty body never reached the write callback.
            deliverNonHTTPResponse(bodyStarted: false)
            perform(machine.hopEnded(.completed))
        case .finish(let error):
            finish(error: error)
        case .stopHopAndFinish(let error):
            curl.stopHop()
            finish(error: error)
        case .startNextHop(let next):
            startNextHop(next)
        case .tunnelRefused(let head, let error):
            tunnelRefused(head, error: error)
        case .hopFailed(let error, let refusedByPolicy):
            hopFailed(error, refusedByPolicy: refusedByPolicy)
        case .succeed:
            succeed()
        }
    }

    /// Ends the task with `error`: from inside a curl callback by making the callback fail, otherwise
    /// by taking the hop out at once.
    func fail(_ error: TransferError) {
        perform(machine.fail(error, insideCallback: curl.insideCallback))
    }

    private func startNextHop(_ next: TransferStateMachine.NextHop) {
        switch next {
        case .restartWithoutRange(let restart):
            do {
                try resumption.discardPartialBytes()
            } catch {
                finish(error: error)
                return
            }
            request = restart
            task.setCurrentRequest(restart)
        case .refetchIgnoringCache(let unconditional):
            request = unconditional
        case .answerFromCache:
            answerFromCache(orFailWith: TransferError(
                .resourceUnavailable, "the origin answered with an error and no stored response could stand in", failingURL: request.url))
            return
        case .retryWithCredential:
            if let body, !body.rewind() {
                askForNewBodyStream(for: "the retry with a credential")
                return
            }
        case .follow(let next, let resendsBody):
            if let response = hopResponse {
                task.channel.push(.redirected(from: response, to: next))
                caching.redirectFollowed(response)
            }
            request = next
            task.setCurrentRequest(next)
            if !resendsBody {
                body = nil
            } else if let body, !body.rewind() {
                askForNewBodyStream(for: "the redirect")
                return
            }
        }
        startHop()
    }

    private func hopFailed(_ error: TransferError, refusedByPolicy: Bool) {
        if resumption.requestedOffset > 0, CurlErrorMapping.isOffsetBeyondEnd(error) {
            // The ftp file is now shorter than the partial file: another version (DL-10).
            startNextHop(.restartWithoutRange(ResumeData.fromTheStart(request)))
            return
        }
        if let hook = tlsHook, case let (unanswered, challenge)? = hook.takeChallenge(),
           connectionChallengesAsked.insert(challenge.protectionSpace).inserted {
            askConnectionChallenge(challenge, unanswered: unanswered, hook: hook)
            return
        }
        if refusedByPolicy {
            finish(error: error)
            return
        }
        if caching.hasFallback {
            answerFromCache(orFailWith: error)
            return
        }
        finish(error: tlsHook?.explaining(error, responseStarted: hopResponse != nil) ?? error)
    }

    // MARK: - Finishing

    /// The hop ended with the task's whole response: writes a body Ferry has itself, then finishes.
    private func succeed() {
        guard endMultipart() else { return }
        if let body = localBody {
            localBody = nil
            deliverLocalBody(body)
            if let abortError = machine.abortError {
                finish(error: abortError)
                return
            }
        }
        finishSuccessfully()
    }

    private func finishSuccessfully() {
        guard !machine.isFinished else { return }
        // An empty body ended the hop before its file was made: finish once it is.
        if awaitsPreparedFile(then: { [self] in post { $0.finishSuccessfully() } }) { return }
        if let response = hopResponse, let proposal = caching.takeProposedEntry(response: response, sink: sink) {
            let (entry, cacheRequest) = (proposal.entry, proposal.request)
            // Asked before completion, as the will-cache decision comes before didComplete (CA-11..CA-14).
            if caching.asksDelegate, let dataTask = role.dataTask,
                task.session.askWillCache(dataTask, proposed: entry, reply: { [self] answer in
                    post { transfer in
                        guard !transfer.machine.isFinished else { return }
                        transfer.caching.store(answer, for: cacheRequest)
                        transfer.finishSuccessfully()
                    }
                })
            {
                return
            }
            caching.store(entry, for: cacheRequest)
        }
        emitProgressIfDue(force: true)
        if case .file(let file, let download) = sink, download.computesSHA256 {
            // The last bytes are still being hashed off the loop: hand the file over once they are.
            file.sha256 { [self] digest in post { $0.handOverBody(sha256: digest) } }
            return
        }
        handOverBody(sha256: nil)
    }

    private func handOverBody(sha256: String?) {
        // Cancelled while the digest was computed: the cancellation has settled the file.
        guard !machine.isFinished else { return }
        do throws(TransferError) {
            if sha256 == nil, case .file(let file, let download) = sink, download.computesSHA256 {
                throw TransferError(.cannotWriteToFile, "cannot read \(file.url.path) back to hash it", failingURL: request.url)
            }
            try sink.finish(sha256: sha256)
        } catch {
            finish(error: error)
            return
        }
        finish(error: nil)
    }

    /// Ends the task. A failure carries resume data when the download can be continued (and, for a
    /// cancellation, when it was asked for); the task completes once that data's hash of the partial
    /// file is computed, off the loop.
    func finish(error: TransferError?) {
        guard machine.finish() else { return }
        endProtocolHop(statusCode: hopResponse?.statusCode, outcome: .stopped)
        guard let failure = error, failure.code != .cancelled || role.download?.producesResumeDataOnCancel == true else {
            complete(error, resumeData: nil)
            return
        }
        withCurrentResumeData { transfer, resumeData in transfer.complete(failure, resumeData: resumeData) }
    }

    private func complete(_ error: TransferError?, resumeData: ResumeData?) {
        var error = error
        if var failure = error {
            // Only the file the resume data names survives; the rest of what was received goes.
            for file in [sink.file, resumption.partialFile].compactMap({ $0 }) {
                if file.url == resumeData?.partialFile { file.keep() } else { file.remove() }
            }
            failure.resumeData = resumeData
            error = failure
        } else {
            // Left alone by an unrelated response: the caller's resume data still names it.
            resumption.partialFile?.keep()
        }
        resumption.partialFile = nil
        abandonPreparedFile()
        body?.close()
        body = nil
        sink = .none
        task.transferEnded(error: error)
    }

    /// The task became another (a data task's download, LC-09): the rest goes to the new one.
    func become(_ role: TransferRole) {
        self.role = role
        task = role.task
    }

    // MARK: - Progress

    /// At most ten progress events a second, and only when something changed.
    func emitProgressIfDue(force: Bool = false) {
        let now = CurlLoop.nowMilliseconds()
        guard force || now &- lastProgressEvent >= 100 else { return }
        let progress = task.progress
        guard progress != lastProgressSent else { return }
        lastProgressEvent = now
        lastProgressSent = progress
        task.channel.push(.progress(progress))
    }

    private func remainingResourceTime() -> Int {
        let now = CurlLoop.nowMilliseconds()
        return resourceDeadline > now ? Int(resourceDeadline - now) : 1
    }
}
