import Foundation

/// A response body arriving piece by piece (see `Session.bytes(for:)`). Iterate it once.
public final class ResponseBody: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = TransferError

    /// The task delivering this body: its progress, or `cancel()` to stop early.
    public let task: DataTask

    init(task: DataTask) {
        self.task = task
    }

    /// Reads events up to the final response; nil when the task ended first.
    func waitForResponse() async -> TransferResponse? {
        while let event = await task.channel.next() {
            switch event {
            case .response(let response): return response
            case .completed: return nil
            default: continue
            }
        }
        return nil
    }

    /// The whole remaining body, for when streaming turned out unnecessary.
    public func collect(upTo limit: Int = .max) async throws(TransferError) -> Data {
        var data = Data()
        for try await piece in self {
            guard data.count + piece.count <= limit else {
                task.cancel()
                throw TransferError(.dataLengthExceedsMaximum, "the body is larger than \(limit) bytes", failingURL: task.originalRequest.url)
            }
            data.append(piece)
        }
        return data
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Held so that iterating keeps the body alive: its deinit cancels an unfinished transfer.
        let body: ResponseBody

        public mutating func next() async throws(TransferError) -> Data? {
            while let event = await body.task.channel.next() {
                switch event {
                case .data(let data): return data
                case .completed(let error):
                    if let error { throw error }
                    return nil
                default: continue
                }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }

    deinit {
        // Nobody reads the rest: stop the transfer instead of leaving it paused forever.
        if task.state != .completed { task.cancel() }
    }
}
