import Foundation

/// Where a `TransferProtocol` reports what happens to its hop (PR-06): the seeds' `NSURLProtocolClient`.
///
/// Thread-safe: call it from any thread or task. Reports are taken in the order they were made;
/// those made after the hop ended (the protocol was stopped) are dropped.
public final class TransferProtocolClient: Sendable {
    private let report: @Sendable (ProtocolReport) -> Void
    /// What the session's cache holds under the protocol's `cacheKey(for:)` for this hop's request;
    /// nil without a key, a cache, or an entry, and when the request's cache policy reloads. The
    /// protocol decides whether it still answers (`cachedResponseIsValid()`).
    public let cachedResponse: CachedResponse?

    init(cachedResponse: CachedResponse? = nil, report: @escaping @Sendable (ProtocolReport) -> Void) {
        self.cachedResponse = cachedResponse
        self.report = report
    }

    /// The response; report it before the body. A body reported without one gets a response with no
    /// status and no length. For a data task, the delegate's disposition is asked here (LC-08).
    /// `cacheStoragePolicy` other than `.notAllowed` asks the engine to store the response and its
    /// body under the protocol's cache key once the body is complete; without a key it is ignored.
    public func didReceive(_ response: TransferResponse, cacheStoragePolicy: CachedResponse.StoragePolicy = .notAllowed) {
        report(.response(response, storagePolicy: cacheStoragePolicy))
    }

    /// `cachedResponse` answers the hop: the task gets it and its body (its cache status `.hit`)
    /// as if loaded, and this hop ends (`stopLoading()` follows). Ignored without a cached response
    /// or after a response was reported.
    public func cachedResponseIsValid() {
        report(.cachedResponseIsValid)
    }

    /// A piece of the body. Returns once the engine took it (written to the download's file, or
    /// handed to the task): while the task is suspended, a decision is pending or a streamed body's
    /// reader is behind, it waits, so a protocol that awaits each piece never has more than one in
    /// flight. Returns at once when the hop is over.
    public func didLoad(_ data: Data) async {
        await withCheckedContinuation { taken in report(.data(data, taken: taken)) }
    }

    /// The request is redirected (PR-06): the task's delegate decides as for an http redirect
    /// (RD-02): follow (the next hop goes to whichever loader takes the new request), substitute,
    /// refuse (this response, with no body, becomes the task's) or cancel. This hop ends here.
    public func wasRedirected(to request: TransferRequest, redirectResponse: TransferResponse) {
        report(.redirected(to: request, response: redirectResponse))
    }

    public func didFinishLoading() {
        report(.finished)
    }

    /// The hop failed with `error`, which becomes the task's.
    public func didFail(with error: TransferError) {
        report(.failed(error))
    }

    /// Asks the task's delegate, as for built-in challenges (AU-05, AU-06); the answer comes back
    /// through `TransferProtocol.challenge(_:answeredWith:)` (PR-07). The hop's body waits meanwhile.
    public func didReceive(_ challenge: AuthenticationChallenge) {
        report(.challenge(challenge))
    }

    /// Withdraws a challenge not answered yet: the hop goes on, and the delegate's late answer is dropped.
    public func didCancel(_ challenge: AuthenticationChallenge) {
        report(.challengeWithdrawn(challenge))
    }
}

/// One report of a protocol's client, on its way to the transfer.
enum ProtocolReport: Sendable {
    case response(TransferResponse, storagePolicy: CachedResponse.StoragePolicy)
    case cachedResponseIsValid
    case data(Data, taken: CheckedContinuation<Void, Never>)
    case redirected(to: TransferRequest, response: TransferResponse)
    case finished
    case failed(TransferError)
    case challenge(AuthenticationChallenge)
    case challengeWithdrawn(AuthenticationChallenge)

    /// The report will never be taken: a protocol waiting on it goes on.
    func drop() {
        if case .data(_, let taken) = self { taken.resume() }
    }
}
