import Foundation

/// The seeds' connection-style convenience calls (LG-01): a blocking request for code that is not
/// async, and a request whose completion handler runs on a queue of the caller's choosing. Both start
/// at once (LG-03) and, as the seeds' convenience API, go with the session's defaults: redirects
/// followed, the request's cache policy, credentials only from the session's storage or the URL
/// (LG-07). Call them on a session without a delegate (`Session.shared`, or one of your own) to have
/// exactly that; a session's delegate would still be asked its decisions.
extension Session {
    /// Sends `request` and blocks the calling thread until the response's body has arrived, the
    /// request failed, or it timed out (LG-08, ER-14). An HTTP error status is a response, not an
    /// error; a failure throws (ER-09).
    ///
    /// It refuses, with `invalidRequest`, to block where blocking could deadlock: inside a Swift task
    /// (the cooperative pool has a thread or two, which the transfer's own work may need) or on one of
    /// the engine's loop threads (which would have to run the transfer). Call it from a thread of
    /// your own or a dispatch queue; from async code, use `data(for:)`.
    public func sendSynchronousRequest(_ request: TransferRequest) throws(TransferError) -> (Data, TransferResponse) {
        if withUnsafeCurrentTask(body: { $0 != nil }) {
            throw TransferError(
                .invalidRequest, "sendSynchronousRequest blocks its thread and must not be called from a Swift task; use data(for:) there")
        }
        if CurlLoop.isLoopThread {
            throw TransferError(.invalidRequest, "sendSynchronousRequest must not be called on an engine loop thread, which runs the transfer")
        }
        let outcome = Locked<Result<(Data, TransferResponse), TransferError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = try dataTask(with: request) { data, response, error in
            if let data, let response {
                outcome.withLock { $0 = .success((data, response)) }
            } else {
                outcome.withLock { $0 = .failure(error ?? TransferError(.badServerResponse, "the request ended without a response")) }
            }
            done.signal()
        }
        task.resume()
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw TransferError(.unknown, "the request ended without an outcome") }
        return try result.get()
    }

    /// Sends `request` at once and calls `completionHandler` on `queue` once, with the body and
    /// response, or the error (LG-01, ER-09: the error is the third argument, data and response nil
    /// unless a response had arrived).
    public func sendAsynchronousRequest(
        _ request: TransferRequest, queue: DispatchQueue,
        completionHandler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void
    ) {
        do {
            let task = try dataTask(with: request) { data, response, error in
                queue.async { completionHandler(data, response, error) }
            }
            task.resume()
        } catch {
            queue.async { completionHandler(nil, nil, error) }
        }
    }
}
