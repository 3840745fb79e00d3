import Foundation

/// Response heads: cookies and the cache see each one, a challenge or a redirect asks the caller
/// (AU-08, RD-02), and the response that ends the chain goes to the task with its sink (LC-08, LC-09).
extension TaskTransfer {
    func headDidComplete(_ head: ResponseHeadParser.Head) {
        cookies.responseArrived(head.headers, for: request)
        var received = TransferResponse(
            url: request.url, statusCode: head.statusCode, headers: head.headers, httpVersion: head.httpVersion,
            expectedContentLength: head.contentLength)
        received.cacheStatus = caching.statusForNetworkResponse
        switch caching.responseArrived(received) {
        case .revalidated(let refreshed, let body):
            // A 304 to our revalidation: the task sees the stored response and body (CA-09).
            var served = refreshed.response
            served.cacheStatus = .revalidated
            hopResponse = served
            localBody = body
            deliverFinalResponse(served)
            return
        case .fallBack:
            // The origin failed (5xx); a stale-if-error entry answers once curl drops the hop.
            machine.continueWith(.answerFromCache)
            return
        case .refetch(let unconditional):
            machine.continueWith(.refetchIgnoringCache(unconditional))
            return
        case .deliver:
            break
        }
        hopResponse = received
        guard !isChallenge(received) else { return }
        redirectOrDeliver(received)
    }

    /// A redirect asks the caller (RD-02); anything else is the task's response.
    func redirectOrDeliver(_ response: TransferResponse) {
        let location = response.headers["Location"]
        switch RedirectPolicy.proposedRequest(after: request, statusCode: response.statusCode ?? 0, location: location) {
        case .notARedirect:
            if resumption.requestedOffset > 0,
                case .restartWithoutRange = resumption.classify(response.statusCode ?? 0, headers: response.headers)
            {
                // Nothing of this body fits the partial file (416, another start, another entity):
                // drop it and ask for everything (DL-09, DL-10).
                machine.continueWith(.restartWithoutRange(ResumeData.fromTheStart(request)))
                return
            }
            // A multipart/x-mixed-replace response is delivered as its parts, each a response (LC-10).
            if startsMultipart(response) { return }
            deliverFinalResponse(response)
        case .unsupportedLocation(let location):
            fail(TransferError(.redirectToUnsupportedURL, "the server redirected to an unsupported location: \(location)",
                               failingURL: request.url))
        case .redirect(let proposed):
            askRedirect(to: proposed, after: response)
        }
    }

    /// Asks the caller whether to follow a redirect to `proposed` (RD-02), within the limit (RD-05).
    func askRedirect(to proposed: TransferRequest, after response: TransferResponse) {
        guard machine.mayRedirect else {
            fail(TransferError(.tooManyRedirects, "more than \(configuration.maximumRedirects) redirects", failingURL: request.url))
            return
        }
        askDecision({ reply in task.session.redirectDecision(for: task, response: response, proposed: proposed, reply: reply) },
                    then: { $0.applyRedirect($1, response: response) })
    }

    /// Asks the caller a decision through the session: applied at once when the session answers now
    /// (it has no delegate), else when the answer arrives, with the hop held until then (AU-21, LC-16).
    func askDecision<Answer: Sendable>(
        _ ask: (_ reply: @escaping @Sendable (Answer) -> Void) -> Answer?,
        then apply: @escaping @Sendable (TaskTransfer, Answer) -> Void
    ) {
        if let decided = ask({ [self] answer in post { apply($0, answer) } }) {
            apply(self, decided)
        } else {
            machine.decisionAsked()
        }
    }

    private func applyRedirect(_ disposition: RedirectDisposition, response: TransferResponse) {
        guard machine.decisionAnswered() else { return }
        switch disposition {
        case .cancel:
            fail(.cancelled(task.originalRequest.url))
        case .refuse:
            deliverFinalResponse(response)
            perform(machine.decisionsSettled())
        case .follow(let next):
            if let refused = machine.follow(next, redirectedBy: response, of: request, loadedByProtocol: customLoader(for: next) != nil) {
                fail(refused)
                return
            }
            task.recordRedirect()
            perform(machine.decisionsSettled())
        }
    }

    /// The response that ends the redirect chain (or the only one, for ftp, file and data URLs).
    func deliverFinalResponse(_ response: TransferResponse) {
        let isFirstResponse = task.response == nil
        machine.responseWasDelivered()
        task.setResponse(response)
        task.channel.push(.response(response))
        let expected = response.headers.contains("Content-Encoding") ? nil : response.expectedContentLength
        task.updateProgress { $0.totalBytesExpectedToReceive = expected }
        guard let dataTask = role.dataTask else {
            // Downloads whose delegate does not decide their responses (all but the gateway's asking
            // jobs) go straight on, with no decision round through the state machine.
            guard isFirstResponse, let download = role.download, task.session.delegate?.decidesDownloadResponses == true else {
                prepareSink()
                return
            }
            askDecision({ reply in task.session.downloadResponseDisposition(for: download, response: response, reply: reply) },
                        then: { $0.applyDownloadDisposition($1) })
            return
        }
        askDecision({ reply in
                        task.session.responseDisposition(
                            for: dataTask, response: response, afterEarlierEvents: multipart != nil, reply: reply)
                    },
                    then: { $0.applyDisposition($1, response: response) })
    }

    private func applyDisposition(_ disposition: ResponseDisposition, response: TransferResponse) {
        guard machine.decisionAnswered() else { return }
        switch disposition {
        case .allow:
            prepareSink()
        case .cancel:
            fail(.cancelled(task.originalRequest.url))
            return
        case .becomeDownload:
            guard let dataTask = role.dataTask else { return }
            let download = task.session.convertToDownload(dataTask, response: response, transfer: self)
            dataTask.channel.push(.becameDownload(download))
            dataTask.finish(error: nil)
            become(.download(download))
            // A later part of a multipart response: the data task's sink gives way to a file.
            sink = .none
            prepareSink()
        }
        // A part's head may have come with more of the body, held until now.
        takeHeldPartBytes()
        perform(machine.decisionsSettled())
    }

    private func applyDownloadDisposition(_ disposition: ResponseDisposition) {
        guard machine.decisionAnswered() else { return }
        if disposition == .cancel {
            fail(.cancelled(task.originalRequest.url))
            return
        }
        prepareSink()
        // A multipart response's first head may have come with more of the body, held until now.
        takeHeldPartBytes()
        perform(machine.decisionsSettled())
    }

    private func prepareSink() {
        // The later parts of a multipart response go on into the sink of the first (emptied for each).
        guard multipart == nil || sink.isNone else { return }
        do {
            if let download = role.download, let partial = try resumption.takePartialFile(for: hopResponse) {
                continueDownload(download, in: partial.file, at: partial.offset)
            } else if let prepared = takePreparedSink() {
                sink = prepared
            } else {
                sink = try ResponseSink.make(for: role, expectedLength: hopResponse?.expectedContentLength)
            }
        } catch {
            fail(error)
        }
    }

    /// The response continues (206) or replaces the partial file the download resumed from (DL-08, DL-09).
    private func continueDownload(_ download: DownloadTask, in file: DownloadFile, at offset: Int64) {
        sink = .file(file, for: download)
        bytesReceived = offset
        let total = resumption.entityTotal
        task.updateProgress { progress in
            progress.bytesReceived = offset
            progress.totalBytesExpectedToReceive = total
        }
        download.recordResume(offset: offset)
        task.channel.push(.resumed(offset: offset, expectedTotal: total))
    }

    /// The response of an ftp or file hop, which has no head: delivered when its body starts, or at
    /// the hop's end when it has none. An ftp download first notes what the server said of the file
    /// (SIZE, MDTM) for its resume data; one continuing a partial file goes on only when that is
    /// what the resume data recorded, and otherwise drops the hop and fetches the file again from
    /// byte 0 (DL-09, DL-10).
    func deliverNonHTTPResponse(bodyStarted: Bool) {
        let scheme = request.url.scheme?.lowercased()
        if role.download != nil, scheme == "ftp" || scheme == "ftps" {
            let facts = RemoteFileFacts(
                announcedLength: curl.announcedContentLength, fileTime: curl.remoteFileTime,
                resumedAt: resumption.requestedOffset, bodyStarted: bodyStarted)
            resumption.remoteFile = facts
            if resumption.requestedOffset > 0, let source = resumption.source, facts.mismatch(against: source) != nil {
                machine.continueWith(.restartWithoutRange(ResumeData.fromTheStart(request)))
                return
            }
        }
        deliverFinalResponse(nonHTTPResponse())
    }

    func nonHTTPResponse() -> TransferResponse {
        TransferResponse(url: request.url, statusCode: nil, expectedContentLength: curl.announcedContentLength)
    }
}
