import Foundation

/// The order of one transfer's hops, decisions and pauses, apart from curl and from the task.
///
/// A transfer is a chain of hops (TT-06): a redirect that is followed (RD-01), a challenge answered
/// with a credential (AU-12) and a resumed request whose response fits nothing (DL-09) each end the
/// current hop with its body discarded and start another. Decisions the caller owns pause the hop
/// until they are answered, however late (AU-21, LC-16), and curl may finish the hop meanwhile: the
/// end waits for the answer. The idle timeout only counts while nothing of ours holds the transfer
/// (LC-22).
///
/// Events are the mutating methods (`hopStarting`, `bodyArrived`, `decisionAsked`,
/// `decisionAnswered`, `hopEnded`, `timerFired`, `cancel`, ...); the driver (`TaskTransfer`) feeds
/// each one in and carries out the `Action` that comes back. Nothing here does I/O, so every
/// transition is tested without sockets. Loop-confined, mutated in place.
struct TransferStateMachine {
    struct PauseReasons: OptionSet, Sendable {
        let rawValue: Int
        static let user = PauseReasons(rawValue: 1)
        /// The consumer of a streamed body is behind.
        static let backpressure = PauseReasons(rawValue: 2)
        /// A streamed upload body has nothing ready.
        static let uploadStarved = PauseReasons(rawValue: 4)
    }

    /// The directions curl should hold.
    struct Pause: OptionSet, Sendable {
        let rawValue: Int
        static let receive = Pause(rawValue: 1)
        static let send = Pause(rawValue: 2)
    }

    /// How curl ended a hop.
    enum HopResult: Equatable, Sendable {
        case completed
        /// `refusedByPolicy`: the connection policy refused the address, which `error` already says.
        case failed(TransferError, refusedByPolicy: Bool)
    }

    /// What starts once a hop whose body is not the task's has ended.
    enum NextHop: Equatable, Sendable {
        /// A followed redirect (RD-01); `resendsBody` for a 307/308 that keeps the method (UP-05).
        case follow(TransferRequest, resendsBody: Bool)
        /// The same request without Range: nothing of the response fits the partial file (DL-09).
        case restartWithoutRange(TransferRequest)
        /// The same request with the credential just chosen (AU-12).
        case retryWithCredential
        /// No request: a stored response answers instead of the hop's error status (RFC 5861 §4).
        case answerFromCache
        /// The same request past the cache: a 304 named another version than the stored one
        /// (RFC 9111 §4.3.4).
        case refetchIgnoringCache(TransferRequest)
    }

    enum Action: Equatable {
        case none
        /// Tell curl to hold exactly these directions.
        case applyPause(Pause)
        /// Body bytes: the task's, to write.
        case write
        /// Body bytes of a hop that is followed by another: dropped.
        case discard
        /// Body bytes while a decision is pending: curl keeps them until the hop resumes.
        case pauseReceiving
        /// Make curl fail the hop from inside its callback; the hop ends with `abortError`.
        case abort
        /// Make curl stop the hop from inside its callback: its body is of no use, and the next hop
        /// starts once it ended.
        case dropHop
        /// The response has not been delivered (ftp, file): deliver it, then send the event again.
        case deliverResponse
        /// End the task: curl has nothing of it any more.
        case finish(TransferError)
        /// End the task, taking the running hop out of curl first.
        case stopHopAndFinish(TransferError)
        /// The hop's body was dropped: send the next request.
        case startNextHop(NextHop)
        /// The proxy refused the tunnel with `head`; `error` is how curl ended the hop.
        case tunnelRefused(ResponseHeadParser.Head, TransferError)
        /// curl ended the hop with `error`: a TLS question left for the delegate, else the task's error.
        case hopFailed(TransferError, refusedByPolicy: Bool)
        /// The hop ended with the task's whole response: finish successfully.
        case succeed
    }

    let maximumRedirects: Int

    private(set) var isFinished = false
    private(set) var pauseReasons: PauseReasons = []
    private(set) var awaitingDecision = false
    private(set) var responseDelivered = false
    /// Set to stop the hop from inside a curl callback; becomes the task's error when the hop ends.
    private(set) var abortError: TransferError?
    private(set) var nextHop: NextHop?
    /// How curl ended the hop while a decision was pending; the end is handled once it is answered.
    private(set) var endedHop: HopResult?
    /// The proxy's answer to the hop's CONNECT when it refused the tunnel (a 407 challenge, a 403).
    private(set) var tunnelRefusal: ResponseHeadParser.Head?
    private(set) var redirectCount = 0
    private var visitedRequests: Set<String> = []
    private var idleTimeout: UInt64 = 0
    private var lastActivity: UInt64 = 0
    private var lastUploaded: Int64 = 0

    init(maximumRedirects: Int) {
        self.maximumRedirects = maximumRedirects
    }

    // MARK: - Pausing

    /// What curl should hold now: everything while the user suspended the task; otherwise receiving
    /// while the consumer is behind or a decision is pending, sending while the upload has nothing.
    var pause: Pause {
        if pauseReasons.contains(.user) { return [.receive, .send] }
        var pause: Pause = []
        if pauseReasons.contains(.backpressure) || awaitingDecision { pause.insert(.receive) }
        if pauseReasons.contains(.uploadStarved) { pause.insert(.send) }
        return pause
    }

    mutating func start(paused: Bool) {
        if paused { pauseReasons.insert(.user) }
    }

    mutating func setUserPaused(_ paused: Bool) -> Action {
        if paused { pauseReasons.insert(.user) } else { pauseReasons.remove(.user) }
        return isFinished ? .none : .applyPause(pause)
    }

    /// The write callback is pausing because the consumer of a streamed body is behind.
    mutating func consumerFellBehind() {
        pauseReasons.insert(.backpressure)
    }

    mutating func consumerCaughtUp() -> Action {
        pauseReasons.remove(.backpressure)
        return isFinished ? .none : .applyPause(pause)
    }

    /// The read callback is pausing because a streamed upload has nothing ready.
    mutating func uploadStarved() {
        pauseReasons.insert(.uploadStarved)
    }

    mutating func uploadDataArrived() -> Action {
        pauseReasons.remove(.uploadStarved)
        return isFinished ? .none : .applyPause(pause)
    }

    // MARK: - Hops

    /// A hop is about to send `request`; false once the task finished. Records the request so that a
    /// redirect back to it is a loop.
    mutating func hopStarting(_ request: TransferRequest) -> Bool {
        guard !isFinished else { return false }
        tunnelRefusal = nil
        visitedRequests.insert(Self.visitKey(request))
        return true
    }

    /// curl runs the hop from now on; it times out after `idleTimeout` ms without data moving.
    mutating func hopRunning(idleTimeout: UInt64, now: UInt64) {
        self.idleTimeout = idleTimeout
        lastActivity = now
    }

    /// A header line arrived; false when the hop is being aborted. `now` is read only when needed.
    mutating func headerLineArrived(now: @autoclosure () -> UInt64) -> Bool {
        guard abortError == nil else { return false }
        lastActivity = now()
        return true
    }

    mutating func tunnelRefused(_ head: ResponseHeadParser.Head) {
        tunnelRefusal = head
    }

    /// Body bytes arrived: what to do with them.
    mutating func bodyArrived(now: @autoclosure () -> UInt64) -> Action {
        guard abortError == nil else { return .abort }
        lastActivity = now()
        if nextHop != nil { return dropsHop ? .dropHop : .discard }
        if awaitingDecision { return .pauseReceiving }
        if !responseDelivered { return .deliverResponse }
        return .write
    }

    /// curl reported upload progress; false when the hop is being aborted.
    mutating func uploadProgressed(to uploaded: Int64, now: @autoclosure () -> UInt64) -> Bool {
        guard abortError == nil else { return false }
        if uploaded != lastUploaded {
            lastUploaded = uploaded
            lastActivity = now()
        }
        return true
    }

    mutating func responseWasDelivered() {
        responseDelivered = true
    }

    /// The hop's body is dropped and `next` starts once curl ends it.
    mutating func continueWith(_ next: NextHop) {
        nextHop = next
    }

    /// Whether the running hop is stopped rather than read to its end: a restart from byte 0 follows
    /// a body (the rest of a file, maybe gigabytes) that fits nothing, while a redirect's or a
    /// challenge's short body is read so that the connection can be used again.
    var dropsHop: Bool {
        switch nextHop {
        case .restartWithoutRange?, .answerFromCache?: true
        default: false
        }
    }

    /// Checks a redirect the caller chose to follow (RD-01, RD-05): the answer is nil when it is
    /// followed once the hop ends, else the error the task fails with. Only http(s) is followed,
    /// unless a custom protocol loads the next request (PR-04).
    mutating func follow(
        _ next: TransferRequest, redirectedBy response: TransferResponse, of request: TransferRequest, loadedByProtocol: Bool = false
    ) -> TransferError? {
        let scheme = next.url.scheme?.lowercased()
        guard loadedByProtocol || scheme == "http" || scheme == "https" else {
            return TransferError(.redirectToUnsupportedURL, "redirect to an unsupported URL: \(next.url.absoluteString)",
                                 failingURL: request.url)
        }
        guard !visitedRequests.contains(Self.visitKey(next)) else {
            return TransferError(.tooManyRedirects, "redirect loop: \(next.url.absoluteString) was already requested",
                                 failingURL: request.url)
        }
        let resends = RedirectPolicy.resendsBody(
            statusCode: response.statusCode ?? 0, originalMethod: request.method, newMethod: next.method)
        nextHop = .follow(next, resendsBody: resends)
        return nil
    }

    /// Whether another redirect is allowed (RD-05).
    var mayRedirect: Bool { redirectCount < maximumRedirects }

    // MARK: - Decisions

    mutating func decisionAsked() {
        awaitingDecision = true
    }

    /// The pending decision was answered; false when the task finished meanwhile.
    mutating func decisionAnswered() -> Bool {
        guard !isFinished else { return false }
        awaitingDecision = false
        return true
    }

    /// After a decision: either end the hop curl already ended, or let the body flow again.
    mutating func decisionsSettled() -> Action {
        guard !awaitingDecision, !isFinished else { return .none }
        if let ended = endedHop {
            endedHop = nil
            return hopEnded(ended)
        }
        return .applyPause(pause)
    }

    // MARK: - Ending

    /// Fails the task: from inside a curl callback by making the callback fail, otherwise at once.
    mutating func fail(_ error: TransferError, insideCallback: Bool) -> Action {
        guard insideCallback else { return .stopHopAndFinish(error) }
        abort(error)
        return .none
    }

    /// Stops the hop with `error` the next time curl asks (a callback that failed, a body that could
    /// not be written).
    mutating func abort(_ error: TransferError) {
        abortError = error
    }

    /// curl ended the hop (or a response Ferry has itself was served): what comes next.
    mutating func hopEnded(_ result: HopResult) -> Action {
        guard !isFinished else { return .none }
        if awaitingDecision {
            endedHop = result
            return .none
        }
        if let abortError { return .finish(abortError) }
        if let next = nextHop {
            nextHop = nil
            if case .follow = next { redirectCount += 1 }
            return .startNextHop(next)
        }
        switch result {
        case .failed(let error, let refusedByPolicy):
            if let refusal = tunnelRefusal {
                tunnelRefusal = nil
                return .tunnelRefused(refusal, error)
            }
            return .hopFailed(error, refusedByPolicy: refusedByPolicy)
        case .completed:
            return responseDelivered ? .succeed : .deliverResponse
        }
    }

    /// The loop's periodic check (LC-22). Paused for the caller's sake (suspended, deciding, reading
    /// slowly, producing the body slowly) is not the server being idle, so the clock stands still.
    mutating func timerFired(now: UInt64, url: URL) -> Action {
        guard !isFinished else { return .none }
        if !pauseReasons.isEmpty || awaitingDecision {
            lastActivity = now
            return .none
        }
        // `now` was read at the top of the loop's turn; a callback in that turn may be later still.
        guard now > lastActivity, now - lastActivity > idleTimeout else { return .none }
        return .stopHopAndFinish(TransferError(
            .timedOut, "no data moved for \(Double(idleTimeout) / 1000) s (the request timeout)", failingURL: url))
    }

    mutating func cancel(url: URL) -> Action {
        isFinished ? .none : .stopHopAndFinish(.cancelled(url))
    }

    /// The task ends here; false when it already had.
    mutating func finish() -> Bool {
        guard !isFinished else { return false }
        isFinished = true
        return true
    }

    private static func visitKey(_ request: TransferRequest) -> String {
        "\(request.method.uppercased()) \(request.url.absoluteString)"
    }
}
