import Foundation

/// Bodies Ferry has itself: data: URLs (decoded, no curl, TT-10) and cache hits (CA-05, CA-09). They
/// end their hop like a network response does, decisions included.
extension TaskTransfer {
    func runDataURL() {
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
        serveLocally(response, body: LocalBody(decoded.body))
    }

    /// Ends the hop with a response and body that need no network.
    func serveLocally(_ response: TransferResponse, body: LocalBody) {
        hopResponse = response
        localBody = body
        deliverFinalResponse(response)
        perform(machine.hopEnded(.completed))
    }

    /// Ends the hop with a stored response: a stored redirect is followed (or refused) as if the
    /// origin had just sent it, anything else delivered (CA-09).
    func serveFromCache(_ response: TransferResponse, body: LocalBody) {
        hopResponse = response
        localBody = body
        redirectOrDeliver(response)
        perform(machine.hopEnded(.completed))
    }

    /// A stale-if-error entry answers for a hop that failed or got an error status (RFC 5861 §4).
    func answerFromCache(orFailWith error: TransferError) {
        guard let (entry, body) = caching.takeFallback() else {
            finish(error: error)
            return
        }
        var response = entry.response
        response.cacheStatus = .stale
        serveFromCache(response, body: body)
    }

    func deliverLocalBody(_ body: LocalBody) {
        guard !machine.isFinished, machine.abortError == nil else { return }
        do throws(TransferError) {
            try body.write(to: { bytes throws(TransferError) in
                try sink.write(bytes)
                bytesReceived += Int64(bytes.count)
            }, failingURL: request.url)
        } catch {
            machine.abort(error)
            return
        }
        let received = bytesReceived
        task.updateProgress { $0.bytesReceived = received }
    }
}
