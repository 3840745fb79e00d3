import Synchronization

/// Runs `work` and gives up on it after `duration`: the caller gets `Deadline.Passed` on time even
/// when `work` does not notice cancellation (a connect or a query to a server that stopped
/// answering), because `work` runs in a task of its own, which is cancelled and left to end by itself.
enum Deadline {
    struct Passed: Error, CustomStringConvertible {
        let duration: Duration
        var description: String { "no answer within \(duration)" }
    }

    static func run<Value: Sendable>(within duration: Duration, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let outcome = Outcome<Value>()
        return try await withCheckedThrowingContinuation { continuation in
            outcome.waiting(continuation)
            let worker = Task {
                do { outcome.settle(.success(try await work())) } catch { outcome.settle(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: duration)
                if outcome.settle(.failure(Passed(duration: duration))) { worker.cancel() }
            }
        }
    }

    /// The first result wins; the continuation is resumed exactly once.
    private final class Outcome<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var settled = false
        }

        private let state = Mutex(State())

        func waiting(_ continuation: CheckedContinuation<Value, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        /// True when this call decided the outcome.
        @discardableResult
        func settle(_ result: Result<Value, any Error>) -> Bool {
            let continuation: CheckedContinuation<Value, any Error>? = state.withLock { state in
                guard !state.settled else { return nil }
                state.settled = true
                defer { state.continuation = nil }
                return state.continuation
            }
            guard let continuation else { return false }
            continuation.resume(with: result)
            return true
        }
    }
}
