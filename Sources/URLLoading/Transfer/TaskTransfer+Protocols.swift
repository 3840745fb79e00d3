import Foundation

/// Hops a custom protocol loads instead of curl (PR-04..PR-08, PR-13, RD-06). What its client
/// reports goes through the same steps as a response curl received: the delegate's decisions, the
/// task's sink, progress, the end of the hop.
extension TaskTransfer {
    /// The custom protocol that loads `request`, if one does (PR-04, PR-08).
    func customLoader(for request: TransferRequest) -> (any TransferProtocol.Type)? {
        // A background session's tasks outlive the process, and the code of a custom protocol with
        // it: they are loaded by the engine itself, over http(s) only (PR-09, BG-04).
        guard configuration.background == nil else { return nil }
        return ProtocolRegistry.loader(for: request, sessionTypes: configuration.protocolClasses)
    }

    /// Starts the hop through `loader`. A request the protocol puts in another canonical form is
    /// first put to the delegate, as a redirect without a redirect response (PR-13, RD-06).
    func startProtocolHop(_ loader: any TransferProtocol.Type) {
        tlsHook = nil
        let canonical = loader.canonicalRequest(for: request)
        guard canonical != request, request != settledCanonicalRequest else {
            loadThroughProtocol(loader)
            return
        }
        let original = request
        askDecision({ reply in
                        task.session.canonicalRequestDecision(for: task, canonical: canonical, original: original, reply: reply)
                    },
                    then: { $0.applyCanonicalDecision($1, original: original) })
    }

    private func applyCanonicalDecision(_ disposition: RedirectDisposition, original: TransferRequest) {
        guard machine.decisionAnswered() else { return }
        switch disposition {
        case .cancel:
            fail(.cancelled(task.originalRequest.url))
            return
        case .refuse:
            settledCanonicalRequest = original
        case .follow(let chosen):
            settledCanonicalRequest = chosen
            request = chosen
            task.setCurrentRequest(chosen)
        }
        // The settled request may belong to another loader now, or to curl.
        startHop()
    }

    private func loadThroughProtocol(_ loader: any TransferProtocol.Type) {
        var loaded = request
        switch role.sentBody {
        case nil:
            break
        case .data(let bytes)?:
            loaded.body = bytes
        case .file?, .stream?:
            finish(error: TransferError(
                .invalidRequest, "a custom protocol is given the request's body in memory; send a file or stream body over http(s)",
                failingURL: request.url))
            return
        }
        let cached: CachedResponse?
        switch caching.planProtocolHop(for: loaded, key: loader.cacheKey(for: loaded), eligible: body == nil && resumption.source == nil) {
        case .load(let entry):
            cached = entry
        case .serve(let entry, let body):
            var response = entry.response
            response.cacheStatus = .hit
            serveFromCache(response, body: body)
            return
        case .fail(let error):
            finish(error: error)
            return
        }
        let hop = ProtocolHop(url: loaded.url, transfer: self)
        protocolHop = hop
        hop.start(loader, request: loaded, cachedResponse: cached, loop: loop)
    }

    /// Takes the protocol's reports in order while nothing holds the hop's body. A decision answered
    /// at once while a report is being taken lets the body flow again from inside that report: the
    /// reports after it wait until it is done, so the body keeps its order.
    func takeProtocolReports() {
        guard let hop = protocolHop, !hop.isBeingTaken else { return }
        hop.isBeingTaken = true
        while hop === protocolHop, !machine.isFinished, !machine.pause.contains(.receive), let report = hop.takeNext() {
            guard take(report, from: hop) else {
                hop.putBack(report)
                break
            }
        }
        hop.isBeingTaken = false
        // A redirect followed at once started the next hop, whose reports are its own.
        if let next = protocolHop, next !== hop { takeProtocolReports() }
    }

    /// Acts on one report; false when it has to wait (its body cannot be taken yet).
    private func take(_ report: ProtocolReport, from hop: ProtocolHop) -> Bool {
        switch report {
        case .response(let response, let storagePolicy):
            // Only the first response counts: the task's response is settled with it.
            guard hopResponse == nil else { return true }
            hop.responseArrived()
            caching.protocolResponseArrived(storagePolicy: storagePolicy)
            hopResponse = response
            deliverFinalResponse(response)
        case .cachedResponseIsValid:
            guard hopResponse == nil, let (entry, body) = caching.takeProtocolEntry() else { return true }
            var response = entry.response
            response.cacheStatus = .hit
            endProtocolHop(statusCode: response.statusCode, outcome: .completed)
            serveFromCache(response, body: body)
        case .data(let bytes, let taken):
            guard takeProtocolBody(bytes, from: hop) else { return false }
            taken.resume()
        case .redirected(let next, let response):
            endProtocolHop(statusCode: response.statusCode, outcome: .completed)
            hopResponse = response
            askRedirect(to: next, after: response)
            perform(machine.hopEnded(.completed))
        case .finished:
            if hopResponse == nil { deliverImpliedResponse() }
            endProtocolHop(statusCode: hopResponse?.statusCode, outcome: .completed)
            perform(machine.hopEnded(.completed))
        case .failed(let error):
            endProtocolHop(statusCode: hopResponse?.statusCode, outcome: .failed)
            perform(machine.hopEnded(.failed(error, refusedByPolicy: false)))
        case .challenge(let challenge):
            hop.pendingChallenge = challenge.protectionSpace
            askDecision({ reply in task.session.challengeDisposition(for: task, challenge: challenge, reply: reply) },
                        then: { $0.answerProtocolChallenge(challenge, with: $1, of: hop) })
        case .challengeWithdrawn(let challenge):
            guard hop.pendingChallenge == challenge.protectionSpace else { return true }
            hop.pendingChallenge = nil
            if machine.decisionAnswered() { perform(machine.decisionsSettled()) }
        }
        return true
    }

    /// Body bytes: written as curl's are, or held back (false) while the task cannot take them.
    private func takeProtocolBody(_ bytes: Data, from hop: ProtocolHop) -> Bool {
        var step = machine.bodyArrived(now: CurlLoop.nowMilliseconds())
        if case .deliverResponse = step {
            deliverImpliedResponse()
            step = machine.bodyArrived(now: CurlLoop.nowMilliseconds())
        }
        switch step {
        case .write:
            switch bytes.withUnsafeBytes({ write($0) }) {
            case .accepted:
                hop.bodyTaken(bytes.count)
                return true
            case .pause:
                return false
            case .abort:
                break
            }
        case .discard:
            return true
        case .pauseReceiving:
            return false
        default:
            break
        }
        // The body cannot be written (a full disk, a failed stream): the hop ends with the machine's error.
        endProtocolHop(statusCode: hopResponse?.statusCode, outcome: .failed)
        perform(machine.hopEnded(.completed))
        return true
    }

    /// A protocol that sends a body (or ends) without a response: the task gets one with no status
    /// and no length, as for a file: URL.
    private func deliverImpliedResponse() {
        let response = TransferResponse(url: request.url, statusCode: nil, expectedContentLength: nil)
        hopResponse = response
        deliverFinalResponse(response)
    }

    /// The delegate's answer goes back to the protocol (PR-07); default handling is settled here first,
    /// with the credential storage's default for the space.
    private func answerProtocolChallenge(_ challenge: AuthenticationChallenge, with disposition: ChallengeDisposition, of hop: ProtocolHop) {
        guard hop === protocolHop, hop.pendingChallenge == challenge.protectionSpace else { return }
        if disposition == .performDefaultHandling {
            if !machine.awaitingDecision { machine.decisionAsked() }
            let storage = configuration.credentialStorage
            Task {
                let credential = await storage.defaultCredential(for: challenge.protectionSpace) ?? challenge.proposedCredential
                post { $0.answerProtocolChallenge(challenge, with: credential.map { .useCredential($0) } ?? .continueWithoutCredential, of: hop) }
            }
            return
        }
        hop.pendingChallenge = nil
        guard machine.decisionAnswered() else { return }
        hop.instance?.challenge(challenge, answeredWith: disposition)
        if disposition == .cancel {
            fail(.cancelled(task.originalRequest.url))
            return
        }
        perform(machine.decisionsSettled())
    }

    /// The protocol's hop is over: it is stopped (its one `stopLoading()`) and its transaction recorded.
    func endProtocolHop(statusCode: Int?, outcome: TransactionMetrics.Outcome) {
        guard let hop = protocolHop else { return }
        protocolHop = nil
        hop.stop()
        task.recordTransaction(hop.metrics(statusCode: statusCode, outcome: outcome))
    }
}
