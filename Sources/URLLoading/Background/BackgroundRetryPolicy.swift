import Foundation

/// When a background task tries again after a network failure (BG-06, ER-13).
///
/// A background transfer belongs to nobody who could decide to try again: the seeds' system retries
/// it on its own, and so does Ferry. Only failures of the network are retried: the host's name not
/// found, the connection refused, reset or lost, no data for the request timeout. An HTTP status is a
/// response, not a failure (ER-01); a cancellation is the caller's; TLS, certificate, file and
/// request errors would fail again the same way.
///
/// Attempts are spaced exponentially: `initialDelay`, twice that, four times ..., at most
/// `maximumDelay`, and never past the task's resource deadline (the configuration's
/// `resourceTimeout`, counted from the task's first start): an attempt that could not begin before
/// it is not made, and the task fails with the last error. A download that received bytes continues
/// from them when the origin allows (`ResumeData`), else starts over.
public struct BackgroundRetryPolicy: Sendable, Equatable {
    public var initialDelay: TimeInterval
    public var maximumDelay: TimeInterval

    public init(initialDelay: TimeInterval = 1, maximumDelay: TimeInterval = 60) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// Failures that a later attempt may not meet.
    static let retriedCodes: Set<TransferError.Code> = [
        .timedOut, .cannotFindHost, .cannotConnectToHost, .cannotConnectToProxy, .networkConnectionLost,
    ]

    static func isRetried(_ error: TransferError) -> Bool {
        retriedCodes.contains(error.code)
    }

    /// The wait before attempt `attempt + 1`, after `attempt` failed attempts (1 for the first failure).
    func delay(afterFailedAttempts attempt: Int) -> TimeInterval {
        let doublings = Double(min(max(attempt - 1, 0), 30))
        return min(maximumDelay, initialDelay * pow(2, doublings))
    }

    /// The wait before trying again, or nil when the task should fail with `error` now: the failure is
    /// not the network's, or the next attempt would start after `deadline`.
    func retryDelay(after error: TransferError, failedAttempts: Int, deadline: Date, now: Date = Date()) -> TimeInterval? {
        guard Self.isRetried(error) else { return nil }
        let delay = delay(afterFailedAttempts: failedAttempts)
        guard now.addingTimeInterval(delay) < deadline else { return nil }
        return delay
    }

    func validate() throws(ConfigurationError) {
        guard initialDelay > 0 else { throw ConfigurationError("background retry initialDelay must be positive") }
        guard maximumDelay >= initialDelay else {
            throw ConfigurationError("background retry maximumDelay must be at least initialDelay")
        }
    }
}
