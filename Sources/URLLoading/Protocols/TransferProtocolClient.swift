import Foundation

/// Where a `TransferProtocol` reports what happens to its hop (PR-06): the seeds' `NSURLProtocolClient`.
///
/// Thread-safe: call it from any thread or task. Reports are taken in the order they were made;
/// those made after the hop ended (the protocol was stopped) are dropped.
public final class TransferProtocolClient: Sendable {
    private let report: @Sendable (ProtocolReport) -> Void

    init(report: @escaping @Sendable (ProtocolReport) -> Void) {
        self.report = report
    }

    /// The response; report it before the body. A body reported without one gets a response with no
    /// status and no length. For a data task, the delegate's disposition is asked here (LC-08).
    public func didReceive(_ response: TransferResponse) {
        report(.response(response))
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
    case response(TransferResponse)
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
