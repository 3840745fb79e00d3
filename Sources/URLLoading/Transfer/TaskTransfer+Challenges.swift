import Foundation

/// Challenges: a 401 or 407 from the server or the proxy (AU-08 ... AU-25), a connection-level
/// question a TLS handshake left to the delegate (TLS-01, TLS-11), and a streamed body that must be
/// sent again (UP-05).
extension TaskTransfer {
    /// Handles a response as an authentication challenge when it is one (AU-08): true when the response
    /// is not the task's (yet), because a retry or a question to the delegate follows.
    func isChallenge(_ response: TransferResponse) -> Bool {
        for answer in authentication.newlyAccepted(statusCode: response.statusCode) {
            task.session.credentialWorked(answer.credential, for: answer.space)
        }
        switch authentication.step(after: response, request: request, proxy: configuration.proxy) {
        case .notAChallenge:
            return false
        case .retryNow:
            machine.continueWith(.retryWithCredential)
        case .fail(let error):
            fail(error)
        case .ask(let offered):
            let round = ChallengeRound(
                session: task.session, task: task, offered: offered, failures: authentication.failures,
                rejected: authentication.rejected, failureResponse: response,
                urlCredential: TaskAuthentication.urlCredential(of: request.url))
            machine.decisionAsked()
            Task { [self] in
                let outcome = await round.resolve()
                post { $0.applyAuthentication(outcome, response: response) }
            }
        }
        return true
    }

    private func applyAuthentication(_ outcome: ChallengeRound.Outcome, response: TransferResponse) {
        guard machine.decisionAnswered() else { return }
        switch outcome {
        case .retry(let answer):
            authentication.use(answer)
            machine.continueWith(.retryWithCredential)
            perform(machine.decisionsSettled())
        case .deliverResponse:
            deliverFinalResponse(response)
            perform(machine.decisionsSettled())
        case .cancel:
            fail(.cancelled(task.originalRequest.url))
        case .fail(let error):
            fail(error)
        }
    }

    /// The proxy refused the CONNECT of an https request. A 407 is a challenge like any other (AU-08):
    /// answered, the hop runs again with the proxy's credential on the CONNECT; unanswered, the 407 is
    /// the task's response (AU-13), with an empty body (curl read and dropped the proxy's). Any other
    /// refusal is an error that names the proxy's status; `error` is how curl ended the hop.
    func tunnelRefused(_ refusal: ResponseHeadParser.Head, error: TransferError) {
        let response = TransferResponse(
            url: request.url, statusCode: refusal.statusCode, headers: refusal.headers, httpVersion: refusal.httpVersion,
            expectedContentLength: 0)
        hopResponse = response
        if isChallenge(response) {
            // Whatever the answer, curl's part of this hop is over: a retry starts a new hop, a delivered
            // 407 finishes without a body.
            perform(machine.hopEnded(.completed))
            return
        }
        finish(error: TransferError(
            .cannotConnectToHost,
            "the proxy refused to open a tunnel to \(request.url.host ?? "the server"): \(refusal.statusCode)",
            failingURL: request.url, curlCode: error.curlCode, curlDetail: error.curlDetail))
    }

    /// A TLS handshake stopped at a question only the delegate can answer (server trust, a client
    /// certificate): ask it, however long it takes (AU-21), then run the hop again with the answer in
    /// the session's decisions (AU-07). Nothing of the hop reached the caller, and nothing of the body
    /// was read before the handshake, so the retry is invisible apart from the challenge itself.
    func askConnectionChallenge(
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
        guard !machine.isFinished else { return }
        switch hook.apply(disposition, to: unanswered, url: request.url) {
        case .fail(let error): finish(error: error)
        case .retry: startHop()
        }
    }

    /// A request must be sent again (`purpose` says why) and its streamed body cannot be rewound:
    /// the delegate gives a new stream, or the task fails (UP-05, AU-25).
    func askForNewBodyStream(for purpose: String) {
        machine.decisionAsked()
        task.session.newBodyStream(for: task) { [self] stream in
            post { transfer in
                guard transfer.machine.decisionAnswered() else { return }
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
}
