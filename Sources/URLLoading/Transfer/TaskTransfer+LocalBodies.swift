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
        serveLocally(response, body: decoded.body)
    }

    /// Ends the hop with a response and body that need no network.
    func serveLocally(_ response: TransferResponse, body: Data) {
        hopResponse = response
        localBody = body
        deliverFinalResponse(response)
        perform(machine.hopEnded(.completed))
    }

    func deliverLocalBody(_ data: Data) {
        guard !machine.isFinished, machine.abortError == nil else { return }
        let failure = data.withUnsafeBytes { bytes -> TransferError? in
            do throws(TransferError) {
                try sink.write(bytes)
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            machine.abort(failure)
            return
        }
        bytesReceived += Int64(data.count)
        let received = bytesReceived
        task.updateProgress { $0.bytesReceived = received }
    }
}
