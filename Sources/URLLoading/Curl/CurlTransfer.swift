import Foundation
internal import CCurl

/// Runs one task on a loop: its first request and every redirect hop after it (TT-06).
///
/// Loop-confined: every method runs on `loop`'s thread (curl callbacks, and closures sent with
/// `post`). The task reports to the public `SessionTask`, which is thread-safe. Decisions the caller
/// owns (redirect, response disposition, a new body stream) pause the transfer until they are
/// answered, however late (AU-21, LC-16); a session without a delegate answers at once, with no pause.
final class CurlTransfer: @unchecked Sendable, CurlTransferDriver {
    struct PauseReasons: OptionSet {
        let rawValue: Int
        static let user = PauseReasons(rawValue: 1)
        /// The consumer of a streamed body is behind.
        static let backpressure = PauseReasons(rawValue: 2)
        /// A streamed upload body has nothing ready.
        static let uploadStarved = PauseReasons(rawValue: 4)
    }

    let loop: CurlLoop
    private(set) var task: SessionTask
    private let configuration: SessionConfiguration

    private var request: TransferRequest
    private var hop: EasyHandle?
    private var hopParser = ResponseHeadParser()
    private var hopResponse: TransferResponse?
    /// The hop goes through a CONNECT tunnel (https through an http proxy).
    private var hopTunnels = false
    /// The proxy's answer to the hop's CONNECT when it refused the tunnel (a 407 challenge, a 403).
    private var tunnelRefusal: ResponseHeadParser.Head?
    private var redirectCount = 0
    private var visitedRequests: Set<String> = []
    private let resourceDeadline: UInt64
    /// The idle timeout (LC-22): the clock runs only while the transfer is not paused.
    private var idleTimeout: UInt64 = 0
    private var lastActivity: UInt64 = 0
    private var lastUploaded: Int64 = 0

    private var body: RequestBodyReader?
    private var sink = ResponseSink.none
    private var bytesReceived: Int64 = 0
    private var lastProgressEvent: UInt64 = 0
    private var lastProgressSent = TransferProgress()

    private var pauseReasons: PauseReasons = []
    private var curlPauseMask = 0
    private var awaitingDecision = false
    /// curl finished the hop while a decision was pending: finish once it is answered.
    private var pendingFinish: (result: CURLcode, detail: String)?
    /// A followed redirect: the hop's remaining body is discarded, then this request starts.
    private var followAfterHop: (request: TransferRequest, resendsBody: Bool)?
    private var responseDelivered = false
    /// Set to make curl stop the hop from inside a callback; becomes the task's error.
    private var abortError: TransferError?
    private var isFinished = false
    /// The address the connection policy refused on this hop, if any: the reason a connect failed.
    private var refusedAddress: String?
    /// This hop's part in its TLS handshakes, when curl's own handling is not all it needs.
    private var tlsHook: TLSHandshakeHook?
    /// Connection-level challenges this task asked the delegate; each space is asked at most once (TLS-01, TLS-11).
    private var connectionChallengesAsked: Set<ProtectionSpace> = []

    // Downloads: what resume data is made of, and continuing from it (DL-07..DL-12).
    /// The resume data a download task continues from.
    private let resumeSource: ResumeData?
    /// The resume data's partial file is being checked off the loop; the first hop waits for it.
    private var reopeningPartialFile = false
    /// The reopened partial file, until a response's body goes into it. It stays here (and is kept)
    /// when an unrelated response (a 404) gets a file of its own.
    private var partialFile: DownloadFile?
    /// The offset this hop's `Range` asked for; 0 when it sent none.
    private var requestedOffset: Int64 = 0
    /// A resumed request whose response fits nothing (416, a wrong Content-Range): its body is
    /// discarded, then this request (without Range) starts over.
    private var restartAfterHop: TransferRequest?
    /// The final response's validators, when its body can be continued later.
    private var entityValidators: EntityValidators?
    /// The whole body's length, when known.
    private var entityTotal: Int64?

    // Cookies and the HTTP cache, on every hop (CK-02, CK-03, CA-05..CA-12).
    private let cookies: TransferCookies
    private var caching: TransferCaching
    /// A body Ferry has itself (a data: URL's, a cached entry's): written when the hop completes.
    private var localBody: Data?
    // Authentication challenges (AU-08 ... AU-25).
    private var authentication: TaskAuthentication
    /// A challenge was answered with a credential: the hop's body is discarded, then the request is sent
    /// again with it.
    private var retryAfterHop = false

    init(task: SessionTask, loop: CurlLoop, configuration: SessionConfiguration) {
        self.task = task
        self.loop = loop
        self.configuration = configuration
        self.request = task.currentRequest
        self.resourceDeadline = CurlLoop.nowMilliseconds() + Self.milliseconds(configuration.resourceTimeout)
        self.resumeSource = (task as? DownloadTask)?.resumeSource
        self.cookies = TransferCookies(configuration: configuration)
        self.caching = TransferCaching(configuration: configuration)
        self.authentication = TaskAuthentication(maximumFailures: configuration.maximumAuthenticationFailures)
    }

    /// Runs `work` on the loop thread with this transfer.
    func post(_ work: @escaping @Sendable (CurlTransfer) -> Void) {
        loop.execute { [self] in work(self) }
    }

    // MARK: - Starting

    func start(paused: Bool) {
        if paused { pauseReasons.insert(.user) }
        do {
            body = try RequestBodyReader.make(for: task, request: request)
        } catch {
            finish(error: error)
            return
        }
        if request.url.scheme?.lowercased() == "data" {
            runDataURL()
        } else if let resumeSource {
            reopenPartialFile(of: resumeSource)
        } else {
            startHop()
        }
    }

    /// Checks and reopens the partial file on another thread (it reads up to `offset` bytes, which
    /// must not hold up the loop's other transfers), then starts the first hop here.
    private func reopenPartialFile(of resumeData: ResumeData) {
        reopeningPartialFile = true
        DispatchQueue.global().async { [self] in
            let outcome: Result<DownloadFile, TransferError>
            do throws(TransferError) {
                outcome = .success(try DownloadFile.reopen(resumeData).file)
            } catch {
                outcome = .failure(error)
            }
            post { $0.partialFileReopened(outcome, resumeData: resumeData) }
        }
    }

    private func partialFileReopened(_ outcome: Result<DownloadFile, TransferError>, resumeData: ResumeData) {
        reopeningPartialFile = false
        let file: DownloadFile
        switch outcome {
        case .failure(let error):
            finish(error: error)
            return
        case .success(let reopened):
            file = reopened
        }
        guard !isFinished else {
            // Cancelled meanwhile: the file stays only if the cancellation handed out resume data.
            if task.error?.resumeData != nil { file.keep() } else { file.remove() }
            return
        }
        partialFile = file
        if file.length > 0 {
            requestedOffset = file.length
            request = ResumeData.continuing(
                request, at: file.length, entityTag: resumeData.entityTag, lastModified: resumeData.lastModified)
            task.setCurrentRequest(request)
        }
        startHop()
    }

    private func startHop() {
        guard !isFinished else { return }
        hopParser = ResponseHeadParser()
        hopResponse = nil
        hopTunnels = CurlRequestOptions.tunnels(request.url, configuration: configuration)
        tunnelRefusal = nil
        refusedAddress = nil
        curlPauseMask = 0
        let key = "\(request.method.uppercased()) \(request.url.absoluteString)"
        visitedRequests.insert(key)
        let sent: TransferRequest
        switch caching.plan(for: request, eligible: body == nil && resumeSource == nil) {
        case .serve(let entry):
            var response = entry.response
            response.cacheStatus = .hit
            serveLocally(response, body: entry.data)
            return
        case .fail(let error):
            finish(error: error)
            return
        case .network(let planned):
            sent = cookies.adding(to: planned)
        }
        guard var easy = EasyHandle.make() else {
            finish(error: TransferError(.unknown, "could not create a curl handle", failingURL: request.url))
            return
        }
        tlsHook = nil
        do {
            let authorized = authentication.authorizing(sent)
            try CurlRequestOptions.apply(
                to: &easy, request: authorized, configuration: configuration, body: body,
                remainingMilliseconds: remainingResourceTime(),
                proxyHeaderLines: hopTunnels ? authentication.tunnelProxyHeaderLines(for: request.url) : [])
            tlsHook = try TLSHandshakeHook.install(on: easy, request: request, session: task.session)
        } catch {
            easy.cleanup()
            finish(error: error)
            return
        }
        idleTimeout = CurlRequestOptions.idleTimeout(request: request, configuration: configuration)
        lastActivity = CurlLoop.nowMilliseconds()
        // From here the hop owns one retain of self, given back by releaseHop().
        hop = easy
        do {
            try installCallbacks(on: easy, context: Unmanaged.passRetained(self).toOpaque())
        } catch {
            releaseHop()
            finish(error: error)
            return
        }
        if !loop.add(easy: easy.raw, driver: self) {
            releaseHop()
            finish(error: TransferError(.cancelled, "the transfer loop is shut down", failingURL: request.url))
            return
        }
        applyPause()
    }

    private func installCallbacks(on easy: EasyHandle, context: UnsafeMutableRawPointer) throws(TransferError) {
        try easy.set(CURLOPT_HEADERDATA, pointer: context, "CURLOPT_HEADERDATA")
        try easy.set(CURLOPT_HEADERFUNCTION, callback: curlTransferHeaderCallback, "CURLOPT_HEADERFUNCTION")
        try easy.set(CURLOPT_WRITEDATA, pointer: context, "CURLOPT_WRITEDATA")
        try easy.set(CURLOPT_WRITEFUNCTION, callback: curlTransferWriteCallback, "CURLOPT_WRITEFUNCTION")
        try easy.set(CURLOPT_XFERINFODATA, pointer: context, "CURLOPT_XFERINFODATA")
        guard ferry_easy_setopt_xferinfo_callback(easy.raw, curlTransferProgressCallback) == CURLE_OK else {
            throw TransferError(.unknown, "libcurl refused CURLOPT_XFERINFOFUNCTION")
        }
        try easy.set(CURLOPT_NOPROGRESS, 0, "CURLOPT_NOPROGRESS")
        if configuration.connectionPolicy != nil {
            try easy.set(CURLOPT_OPENSOCKETDATA, pointer: context, "CURLOPT_OPENSOCKETDATA")
            guard ferry_easy_setopt_opensocket_callback(easy.raw, curlTransferOpenSocketCallback) == CURLE_OK else {
                throw TransferError(.unknown, "libcurl refused CURLOPT_OPENSOCKETFUNCTION")
            }
        }
        if body != nil {
            try easy.set(CURLOPT_READDATA, pointer: context, "CURLOPT_READDATA")
            try easy.set(CURLOPT_READFUNCTION, callback: curlTransferReadCallback, "CURLOPT_READFUNCTION")
            try easy.set(CURLOPT_SEEKDATA, pointer: context, "CURLOPT_SEEKDATA")
            guard ferry_easy_setopt_seek_callback(easy.raw, curlTransferSeekCallback) == CURLE_OK else {
                throw TransferError(.unknown, "libcurl refused CURLOPT_SEEKFUNCTION")
            }
        }
    }

    /// Frees the current hop's handle and the retain its callbacks held.
    private func releaseHop() {
        guard let easy = hop else { return }
        hop = nil
        easy.cleanup()
        tlsHook?.hopEnded()
        Unmanaged.passUnretained(self).release()
    }

    // MARK: - Control (posted by the task)

    func setUserPaused(_ paused: Bool) {
        if paused { pauseReasons.insert(.user) } else { pauseReasons.remove(.user) }
        applyPause()
    }

    func cancel() {
        guard !isFinished else { return }
        stopHop()
        finish(error: .cancelled(task.originalRequest.url))
    }

    private func backpressureRelieved() {
        pauseReasons.remove(.backpressure)
        applyPause()
    }

    private func uploadDataArrived() {
        pauseReasons.remove(.uploadStarved)
        applyPause()
    }

    /// Tells curl the pause state our reasons call for. The mask is recorded before calling curl,
    /// because unpausing may run the write callback at once, and it may pause again.
    private func applyPause() {
        guard let easy = hop, !isFinished else { return }
        var desired = 0
        if pauseReasons.contains(.user) {
            desired = FERRY_CURLPAUSE_ALL
        } else {
            if pauseReasons.contains(.backpressure) || awaitingDecision { desired |= FERRY_CURLPAUSE_RECV }
            if pauseReasons.contains(.uploadStarved) { desired |= FERRY_CURLPAUSE_SEND }
        }
        guard desired != curlPauseMask else { return }
        curlPauseMask = desired
        _ = easy.pause(desired)
    }

    /// Takes the current hop out of curl at once (cancel, decisions that end the task).
    private func stopHop() {
        guard let easy = hop else { return }
        loop.remove(easy: easy.raw)
        releaseHop()
    }

    // MARK: - Idle timeout

    func checkIdle(now: UInt64) {
        guard hop != nil, !isFinished else { return }
        // Paused for the caller's sake (suspended, deciding, reading slowly, producing the body
        // slowly): that is not the server being idle, so the clock stands still.
        if !pauseReasons.isEmpty || awaitingDecision {
            lastActivity = now
            return
        }
        // `now` was read at the top of the loop's turn; a callback in that turn may be later still.
        guard now > lastActivity, now - lastActivity > idleTimeout else { return }
        fail(TransferError(.timedOut, "no data moved for \(Double(idleTimeout) / 1000) s (the request timeout)",
                           failingURL: request.url))
    }

    // MARK: - curl callbacks (on the loop thread, inside curl)

    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard abortError == nil else { return 0 }
        lastActivity = CurlLoop.nowMilliseconds()
        guard isHTTP else { return bytes.count }
        if let head = hopParser.consume(line: bytes) {
            // The head of a tunnel's CONNECT response arrives while curl has no response code yet.
            if hopTunnels, let easy = hop, (easy.info(CURLINFO_RESPONSE_CODE) ?? 0) == 0 {
                if !(200..<300).contains(head.statusCode) { tunnelRefusal = head }
                return bytes.count
            }
            headDidComplete(head)
        }
        return abortError == nil ? bytes.count : 0
    }

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard abortError == nil else { return 0 }
        lastActivity = CurlLoop.nowMilliseconds()
        if followAfterHop != nil || restartAfterHop != nil || retryAfterHop { return bytes.count }
        if awaitingDecision {
            curlPauseMask |= FERRY_CURLPAUSE_RECV
            return Int(FERRY_WRITEFUNC_PAUSE)
        }
        if !responseDelivered {
            deliverFinalResponse(nonHTTPResponse())
            if awaitingDecision {
                curlPauseMask |= FERRY_CURLPAUSE_RECV
                return Int(FERRY_WRITEFUNC_PAUSE)
            }
            if abortError != nil { return 0 }
        }
        if case .stream = sink {
            let relieve: @Sendable () -> Void = { [self] in post { $0.backpressureRelieved() } }
            if !task.channel.reserveCapacity(orCallWhenDrained: relieve) {
                pauseReasons.insert(.backpressure)
                curlPauseMask |= FERRY_CURLPAUSE_RECV
                return Int(FERRY_WRITEFUNC_PAUSE)
            }
        }
        do {
            try sink.write(bytes, to: task)
        } catch {
            abortError = error
            return 0
        }
        caching.received(bytes)
        bytesReceived += Int64(bytes.count)
        let received = bytesReceived
        task.updateProgress { $0.bytesReceived = received }
        emitProgressIfDue()
        return bytes.count
    }

    fileprivate func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let body else { return 0 }
        switch body.read(into: buffer, wake: { [self] in post { $0.uploadDataArrived() } }) {
        case .bytes(let count): return count
        case .end: return 0
        case .wouldBlock:
            pauseReasons.insert(.uploadStarved)
            curlPauseMask |= FERRY_CURLPAUSE_SEND
            return Int(FERRY_READFUNC_PAUSE)
        case .failed(let message):
            abortError = TransferError(.cannotReadUploadBody, message, failingURL: request.url)
            return Int(FERRY_READFUNC_ABORT)
        }
    }

    /// Opens a socket for curl, after the connection policy accepted the resolved address.
    fileprivate func openSocket(for address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        if let policy = configuration.connectionPolicy {
            var bytes = [UInt8](repeating: 0, count: 16)
            var port: Int32 = 0
            let version = ferry_sockaddr_inspect(address, &bytes, &port)
            guard version == 4 || version == 6 else {
                refusedAddress = "an address that is not IPv4 or IPv6"
                return FERRY_SOCKET_BAD
            }
            let candidate = ConnectionAddress(
                family: version == 4 ? .ipv4 : .ipv6, bytes: Array(bytes.prefix(version == 4 ? 4 : 16)), port: Int(port))
            guard policy.allows(candidate) else {
                refusedAddress = candidate.description
                return FERRY_SOCKET_BAD
            }
        }
        return ferry_open_socket(address)
    }

    fileprivate func seekBody(to offset: Int64) -> Bool {
        body?.seek(to: offset) ?? false
    }

    fileprivate func progress(uploaded: Int64) -> Int32 {
        guard abortError == nil else { return 1 }
        if uploaded != lastUploaded {
            lastUploaded = uploaded
            lastActivity = CurlLoop.nowMilliseconds()
        }
        let expected = body?.length
        task.updateProgress { progress in
            progress.bytesSent = uploaded
            progress.totalBytesExpectedToSend = expected
        }
        emitProgressIfDue()
        return 0
    }

    /// At most ten progress events a second, and only when something changed.
    private func emitProgressIfDue(force: Bool = false) {
        let now = CurlLoop.nowMilliseconds()
        guard force || now &- lastProgressEvent >= 100 else { return }
        let progress = task.progress
        guard progress != lastProgressSent else { return }
        lastProgressEvent = now
        lastProgressSent = progress
        task.channel.push(.progress(progress))
    }

    // MARK: - Responses and decisions

    private var isHTTP: Bool {
        let scheme = request.url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }

    private func nonHTTPResponse() -> TransferResponse {
        var length: Int64?
        if let easy = hop, let announced = easy.info(offset: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T), announced >= 0 {
            length = announced
        }
        return TransferResponse(url: request.url, statusCode: nil, expectedContentLength: length)
    }

    private func headDidComplete(_ head: ResponseHeadParser.Head) {
        cookies.responseArrived(head.headers, for: request)
        var received = TransferResponse(
            url: request.url, statusCode: head.statusCode, headers: head.headers, httpVersion: head.httpVersion,
            expectedContentLength: head.contentLength)
        received.cacheStatus = caching.statusForNetworkResponse
        if let refreshed = caching.responseArrived(received) {
            // A 304 to our revalidation: the task sees the stored response and body (CA-09).
            var served = refreshed.response
            served.cacheStatus = .revalidated
            hopResponse = served
            localBody = refreshed.data
            deliverFinalResponse(served)
            return
        }
        let response = received
        hopResponse = response
        guard !isChallenge(response) else { return }
        switch RedirectPolicy.proposedRequest(after: request, statusCode: head.statusCode, location: head.headers["Location"]) {
        case .notARedirect:
            if requestedOffset > 0,
                case .restartWithoutRange = ResumeResponse.classify(
                    statusCode: head.statusCode, headers: head.headers, requestedOffset: requestedOffset)
            {
                // Nothing of this body fits the partial file: drop it and ask for everything.
                restartAfterHop = ResumeData.fromTheStart(request)
                return
            }
            deliverFinalResponse(response)
        case .unsupportedLocation(let location):
            fail(TransferError(.redirectToUnsupportedURL, "the server redirected to an unsupported location: \(location)",
                               failingURL: request.url))
        case .redirect(let proposed):
            guard redirectCount < configuration.maximumRedirects else {
                fail(TransferError(.tooManyRedirects, "more than \(configuration.maximumRedirects) redirects",
                                   failingURL: request.url))
                return
            }
            let decided = task.session.redirectDecision(for: task, response: response, proposed: proposed) { [self] answer in
                post { $0.applyRedirect(answer, response: response) }
            }
            if let decided {
                applyRedirect(decided, response: response)
            } else {
                awaitingDecision = true
            }
        }
    }

    /// Handles a response as an authentication challenge when it is one (AU-08): true when the response
    /// is not the task's (yet), because a retry or a question to the delegate follows.
    private func isChallenge(_ response: TransferResponse) -> Bool {
        for answer in authentication.newlyAccepted(statusCode: response.statusCode) {
            task.session.credentialWorked(answer.credential, for: answer.space)
        }
        switch authentication.step(after: response, request: request, proxy: configuration.proxy) {
        case .notAChallenge:
            return false
        case .retryNow:
            retryAfterHop = true
        case .fail(let error):
            fail(error)
        case .ask(let offered):
            let round = ChallengeRound(
                session: task.session, task: task, offered: offered, failures: authentication.failures,
                rejected: authentication.rejected, failureResponse: response,
                urlCredential: TaskAuthentication.urlCredential(of: request.url))
            awaitingDecision = true
            Task { [self] in
                let outcome = await round.resolve()
                post { $0.applyAuthentication(outcome, response: response) }
            }
        }
        return true
    }

    private func applyAuthentication(_ outcome: ChallengeRound.Outcome, response: TransferResponse) {
        guard !isFinished else { return }
        awaitingDecision = false
        switch outcome {
        case .retry(let answer):
            authentication.use(answer)
            retryAfterHop = true
            resumeAfterDecision()
        case .deliverResponse:
            deliverFinalResponse(response)
            resumeAfterDecision()
        case .cancel:
            fail(.cancelled(task.originalRequest.url))
        case .fail(let error):
            fail(error)
        }
    }

    private func applyRedirect(_ disposition: RedirectDisposition, response: TransferResponse) {
        guard !isFinished else { return }
        awaitingDecision = false
        switch disposition {
        case .cancel:
            fail(.cancelled(task.originalRequest.url))
        case .refuse:
            deliverFinalResponse(response)
            resumeAfterDecision()
        case .follow(let next):
            let scheme = next.url.scheme?.lowercased()
            guard scheme == "http" || scheme == "https" else {
                fail(TransferError(.redirectToUnsupportedURL, "redirect to an unsupported URL: \(next.url.absoluteString)",
                                   failingURL: request.url))
                return
            }
            let key = "\(next.method.uppercased()) \(next.url.absoluteString)"
            guard !visitedRequests.contains(key) else {
                fail(TransferError(.tooManyRedirects, "redirect loop: \(next.url.absoluteString) was already requested",
                                   failingURL: request.url))
                return
            }
            let resends = RedirectPolicy.resendsBody(
                statusCode: response.statusCode ?? 0, originalMethod: request.method, newMethod: next.method)
            followAfterHop = (next, resends)
            resumeAfterDecision()
        }
    }

    /// The response that ends the redirect chain (or the only one, for ftp, file and data URLs).
    private func deliverFinalResponse(_ response: TransferResponse) {
        responseDelivered = true
        task.setResponse(response)
        task.channel.push(.response(response))
        let expected = response.headers.contains("Content-Encoding") ? nil : response.expectedContentLength
        task.updateProgress { $0.totalBytesExpectedToReceive = expected }
        guard let dataTask = task as? DataTask else {
            prepareSink()
            return
        }
        let decided = task.session.responseDisposition(for: dataTask, response: response) { [self] answer in
            post { $0.applyDisposition(answer, response: response) }
        }
        if let decided {
            applyDisposition(decided, response: response)
        } else {
            awaitingDecision = true
        }
    }

    private func applyDisposition(_ disposition: ResponseDisposition, response: TransferResponse) {
        guard !isFinished else { return }
        awaitingDecision = false
        switch disposition {
        case .allow:
            prepareSink()
        case .cancel:
            fail(.cancelled(task.originalRequest.url))
            return
        case .becomeDownload:
            guard let dataTask = task as? DataTask else { return }
            let download = task.session.convertToDownload(dataTask, response: response, transfer: self)
            dataTask.channel.push(.becameDownload(download))
            dataTask.finish(error: nil)
            task = download
            prepareSink()
        }
        resumeAfterDecision()
    }

    private func prepareSink() {
        do {
            if task is DownloadTask {
                try prepareDownloadFile()
            } else {
                sink = try ResponseSink.make(for: task, expectedLength: hopResponse?.expectedContentLength)
            }
        } catch {
            fail(error)
        }
    }

    /// Chooses the download's file: the partial file when the response continues it (206) or replaces
    /// it (a whole body), else a new temporary file. Notes what resume data will need.
    private func prepareDownloadFile() throws(TransferError) {
        let response = hopResponse
        entityValidators = response.flatMap(EntityValidators.init(response:))
        let encoded = response?.headers.contains("Content-Encoding") ?? false
        entityTotal = encoded ? nil : response?.expectedContentLength
        guard let partial = partialFile, let response else {
            sink = try ResponseSink.make(for: task, expectedLength: response?.expectedContentLength)
            return
        }
        let continuation = ResumeResponse.classify(
            statusCode: response.statusCode, headers: response.headers, requestedOffset: requestedOffset)
        let offset: Int64
        switch continuation {
        case .append(let expectedTotal):
            offset = partial.length
            entityTotal = expectedTotal
            // A 206 may leave out validators the first response had; the entity is the same one.
            if entityValidators == nil, let resumeSource {
                entityValidators = EntityValidators(entityTag: resumeSource.entityTag, lastModified: resumeSource.lastModified)
            }
        case .replace(let expectedTotal):
            try partial.truncateToZero()
            offset = 0
            entityTotal = expectedTotal
        case .unrelated, .restartWithoutRange:
            sink = try ResponseSink.make(for: task, expectedLength: response.expectedContentLength)
            return
        }
        partialFile = nil
        sink = .file(partial)
        bytesReceived = offset
        let total = entityTotal
        task.updateProgress { progress in
            progress.bytesReceived = offset
            progress.totalBytesExpectedToReceive = total
        }
        (task as? DownloadTask)?.recordResume(offset: offset)
        task.channel.push(.resumed(offset: offset, expectedTotal: total))
    }


    /// After a decision: either finish what curl already finished, or let the body flow again.
    private func resumeAfterDecision() {
        guard !awaitingDecision, !isFinished else { return }
        if let pending = pendingFinish {
            pendingFinish = nil
            completeHop(result: pending.result, detail: pending.detail)
        } else {
            applyPause()
        }
    }

    /// Ends the task with `error`: from inside a curl callback by making the callback fail, otherwise
    /// by taking the hop out at once.
    private func fail(_ error: TransferError) {
        if insideCurlCallback {
            abortError = error
        } else {
            stopHop()
            finish(error: error)
        }
    }

    fileprivate var insideCurlCallback = false

    // MARK: - Finishing

    func curlDidFinish(easy: UnsafeMutableRawPointer, result: CURLcode) {
        let detail = hop?.errorDetail ?? ""
        releaseHop()
        guard !isFinished else { return }
        if awaitingDecision {
            pendingFinish = (result, detail)
            return
        }
        completeHop(result: result, detail: detail)
    }

    func loopDidShutDown(easy: UnsafeMutableRawPointer) {
        releaseHop()
        finish(error: TransferError(.cancelled, "the transfer loop shut down", failingURL: request.url))
    }

    private func completeHop(result: CURLcode, detail: String) {
        if let abortError {
            finish(error: abortError)
            return
        }
        if let restart = restartAfterHop {
            restartAfterHop = nil
            requestedOffset = 0
            request = restart
            task.setCurrentRequest(restart)
            startHop()
            return
        }
        if retryAfterHop {
            retryAfterHop = false
            if let body, !body.rewind() {
                askForNewBodyStream(for: "the retry with a credential")
                return
            }
            startHop()
            return
        }
        if let (next, resendsBody) = followAfterHop, let response = hopResponse {
            followAfterHop = nil
            redirectCount += 1
            task.channel.push(.redirected(from: response, to: next))
            request = next
            task.setCurrentRequest(next)
            if !resendsBody {
                body = nil
            } else if let body, !body.rewind() {
                askForNewBodyStream(for: "the redirect")
                return
            }
            startHop()
            return
        }
        guard result == CURLE_OK else {
            if let refusal = tunnelRefusal {
                tunnelRefused(refusal, result: result, detail: detail)
                return
            }
            if let hook = tlsHook, case let (unanswered, challenge)? = hook.takeChallenge(),
               connectionChallengesAsked.insert(challenge.protectionSpace).inserted {
                askConnectionChallenge(challenge, unanswered: unanswered, hook: hook)
                return
            }
            if let refusedAddress, let policy = configuration.connectionPolicy {
                finish(error: TransferError(
                    .destinationForbidden, "connecting to \(refusedAddress) is not allowed (\(policy.name))",
                    failingURL: request.url, curlCode: Int(result.rawValue), curlDetail: detail))
                return
            }
            let error = CurlErrorMapping.error(for: result, detail: detail, url: request.url, configuration: configuration)
            finish(error: tlsHook?.explaining(error, responseStarted: hopResponse != nil) ?? error)
            return
        }
        if !responseDelivered {
            // ftp and file transfers with an empty body never reached the write callback.
            deliverFinalResponse(nonHTTPResponse())
            if awaitingDecision {
                pendingFinish = (result, detail)
                return
            }
        }
        if let body = localBody {
            localBody = nil
            deliverLocalBody(body)
            if let abortError {
                finish(error: abortError)
                return
            }
        }
        finishSuccessfully()
    }

    /// The proxy refused the CONNECT of an https request. A 407 is a challenge like any other (AU-08):
    /// answered, the hop runs again with the proxy's credential on the CONNECT; unanswered, the 407 is
    /// the task's response (AU-13), with an empty body (curl read and dropped the proxy's). Any other
    /// refusal is an error that names the proxy's status.
    private func tunnelRefused(_ refusal: ResponseHeadParser.Head, result: CURLcode, detail: String) {
        tunnelRefusal = nil
        let response = TransferResponse(
            url: request.url, statusCode: refusal.statusCode, headers: refusal.headers, httpVersion: refusal.httpVersion,
            expectedContentLength: 0)
        hopResponse = response
        // Whatever the answer, curl's part of this hop is over: a retry starts a new hop, a delivered
        // 407 finishes without a body.
        pendingFinish = (CURLE_OK, "")
        if isChallenge(response) {
            resumeAfterDecision()
            return
        }
        pendingFinish = nil
        finish(error: TransferError(
            .cannotConnectToHost,
            "the proxy refused to open a tunnel to \(request.url.host ?? "the server"): \(refusal.statusCode)",
            failingURL: request.url, curlCode: Int(result.rawValue), curlDetail: detail))
    }

    /// A TLS handshake stopped at a question only the delegate can answer (server trust, a client
    /// certificate): ask it, however long it takes (AU-21), then run the hop again with the answer in
    /// the session's decisions (AU-07). Nothing of the hop reached the caller, and nothing of the body
    /// was read before the handshake, so the retry is invisible apart from the challenge itself.
    private func askConnectionChallenge(
        _ challenge: AuthenticationChallenge, unanswered: TLSHandshakeHook.Unanswered, hook: TLSHandshakeHook
    ) {
        let decided = task.session.challengeDisposition(for: task, challenge: challenge) { [self] disposition in
            post { $0.connectionChallengeAnswered(disposition, unanswered: unanswered, hook: hook) }
        }
        if let decided { connectionChallengeAnswered(decided, unanswered: unanswered, hook: hook) }
    }

    private func connectionChallengeAnswered(
        _ disposition: ChallengeDisposition, unanswered: TLSHandshakeHook.Unanswered, hook: TLSHandshakeHook
    ) {
        guard !isFinished else { return }
        switch hook.apply(disposition, to: unanswered, url: request.url) {
        case .fail(let error): finish(error: error)
        case .retry: startHop()
        }
    }

    /// A request must be sent again (`purpose` says why) and its streamed body cannot be rewound:
    /// the delegate gives a new stream, or the task fails (UP-05, AU-25).
    private func askForNewBodyStream(for purpose: String) {
        awaitingDecision = true
        task.session.newBodyStream(for: task) { [self] stream in
            post { transfer in
                transfer.awaitingDecision = false
                guard let stream else {
                    transfer.finish(error: TransferError(
                        .cannotReadUploadBody, "\(purpose) needs the streamed body again and no new stream was given",
                        failingURL: transfer.request.url))
                    return
                }
                transfer.body = RequestBodyReader.stream(UploadStreamPump(stream: stream), length: transfer.body?.length)
                transfer.startHop()
            }
        }
    }

    private func finishSuccessfully() {
        guard !isFinished else { return }
        if let response = hopResponse, let proposal = caching.takeProposedEntry(response: response) {
            let (entry, cacheRequest) = (proposal.entry, proposal.request)
            // Asked before completion, as the will-cache decision comes before didComplete (CA-11..CA-14).
            if caching.asksDelegate(for: task), let dataTask = task as? DataTask,
                task.session.askWillCache(dataTask, proposed: entry, reply: { [self] answer in
                    post { transfer in
                        guard !transfer.isFinished else { return }
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
        do {
            try sink.finish(task: task)
        } catch {
            finish(error: error)
            return
        }
        finish(error: nil)
    }

    private func finish(error: TransferError?) {
        guard !isFinished else { return }
        var error = error
        if var failure = error {
            let cancelledKeepingData = (task as? DownloadTask)?.producesResumeDataOnCancel ?? false
            let resumeData = failure.code != .cancelled || cancelledKeepingData ? currentResumeData() : nil
            // Only the file the resume data names survives; the rest of what was received goes.
            for file in [sink.file, partialFile].compactMap({ $0 }) {
                if file.url == resumeData?.partialFile { file.keep() } else { file.remove() }
            }
            failure.resumeData = resumeData
            error = failure
        } else {
            // Left alone by an unrelated response: the caller's resume data still names it.
            partialFile?.keep()
        }
        partialFile = nil
        isFinished = true
        body?.close()
        body = nil
        sink = .none
        task.finish(error: error)
    }

    // MARK: - Resume data (DL-07, DL-08, DL-12)

    /// On the loop: the resume data for what the file holds now, for `DownloadTask.resumeDataSnapshot()`.
    func resumeDataSnapshot() -> ResumeData? {
        isFinished ? nil : currentResumeData()
    }

    /// What continues this download from the bytes written so far, or nil when it cannot be continued.
    private func currentResumeData() -> ResumeData? {
        guard let download = task as? DownloadTask else { return nil }
        if let file = sink.file, let validators = entityValidators {
            // A sent body (an upload job writing to a file) is not repeated by a Range request.
            guard file.length > 0, download.uploadBody == nil, ResumeData.canResume(download.originalRequest) else { return nil }
            return ResumeData(
                url: hopResponse?.url ?? request.url, originalRequest: download.originalRequest,
                entityTag: validators.entityTag, lastModified: validators.lastModified, offset: file.length,
                partialFile: file.url, sha256: file.sha256SoFar, expectedTotal: entityTotal)
        }
        guard let resumeSource else { return nil }
        // Still checking the partial file, which is as the resume data says or about to be emptied.
        if reopeningPartialFile { return resumeSource }
        // Reopened, and not written to: no response yet, or an unrelated one.
        guard let partial = partialFile, partial.length > 0 else { return nil }
        var data = resumeSource
        data.offset = partial.length
        data.sha256 = partial.sha256SoFar
        return data
    }

    // MARK: - Bodies Ferry has itself: data: URLs (decoded, no curl) and cache hits

    private func runDataURL() {
        let decoded: DataURL
        do {
            decoded = try DataURL.decode(request.url)
        } catch {
            finish(error: error)
            return
        }
        var headers = HTTPHeaders()
        headers["Content-Type"] = decoded.contentType
        headers["Content-Length"] = String(decoded.body.count)
        let response = TransferResponse(
            url: request.url, statusCode: nil, headers: headers, expectedContentLength: Int64(decoded.body.count))
        serveLocally(response, body: decoded.body)
    }

    /// Ends the hop with a response and body that need no network.
    private func serveLocally(_ response: TransferResponse, body: Data) {
        hopResponse = response
        localBody = body
        deliverFinalResponse(response)
        if awaitingDecision {
            pendingFinish = (CURLE_OK, "")
            return
        }
        completeHop(result: CURLE_OK, detail: "")
    }

    private func deliverLocalBody(_ data: Data) {
        guard !isFinished, abortError == nil else { return }
        let failure = data.withUnsafeBytes { bytes -> TransferError? in
            do {
                try sink.write(bytes, to: task)
                return nil
            } catch let error as TransferError {
                return error
            } catch {
                return TransferError(.unknown, "\(error)")
            }
        }
        if let failure {
            abortError = failure
            return
        }
        bytesReceived += Int64(data.count)
        let received = bytesReceived
        task.updateProgress { $0.bytesReceived = received }
    }

    // MARK: - Helpers

    private func remainingResourceTime() -> Int {
        let now = CurlLoop.nowMilliseconds()
        return resourceDeadline > now ? Int(resourceDeadline - now) : 1
    }

    static func milliseconds(_ interval: TimeInterval) -> UInt64 {
        interval >= Double(UInt64.max / 2000) ? UInt64.max / 2 : UInt64(max(1, (interval * 1000).rounded(.up)))
    }
}

// MARK: - C callbacks: non-capturing, they find the transfer through the context pointer.

/// The transfer behind a callback's context pointer. curl hands back exactly the pointer each hop set,
/// which holds a retain until the hop is released, so it is never dangling; nil would be a curl bug.
private func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer? {
    context.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue() }
}

private let curlTransferHeaderCallback: ferry_data_callback = { pointer, size, count, context in
    guard let owner = transfer(context) else { return 0 }
    owner.insideCurlCallback = true
    defer { owner.insideCurlCallback = false }
    return owner.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

private let curlTransferWriteCallback: ferry_data_callback = { pointer, size, count, context in
    guard let owner = transfer(context) else { return 0 }
    owner.insideCurlCallback = true
    defer { owner.insideCurlCallback = false }
    return owner.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

private let curlTransferReadCallback: ferry_data_callback = { pointer, size, count, context in
    guard let owner = transfer(context) else { return Int(FERRY_READFUNC_ABORT) }
    owner.insideCurlCallback = true
    defer { owner.insideCurlCallback = false }
    return owner.readBody(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
}

private let curlTransferOpenSocketCallback: ferry_opensocket_callback = { context, _, address in
    transfer(context)?.openSocket(for: address) ?? FERRY_SOCKET_BAD
}

private let curlTransferSeekCallback: ferry_seek_callback = { context, offset, origin in
    // CURL_SEEKFUNC_OK = 0, CURL_SEEKFUNC_CANTSEEK = 2. curl only ever seeks from the start.
    guard origin == SEEK_SET else { return 2 }
    return transfer(context)?.seekBody(to: Int64(offset)) == true ? 0 : 2
}

private let curlTransferProgressCallback: ferry_xferinfo_callback = { context, _, _, _, uploaded in
    transfer(context)?.progress(uploaded: Int64(uploaded)) ?? 1
}
