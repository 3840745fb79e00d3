import Foundation
import URLLoading

/// Whether a failed attempt runs again, and when ("network errors, 5xx, 429 retry with
/// exponential backoff and jitter, honouring Retry-After, up to max_attempts").
public struct RetryPolicy: Sendable, Equatable {
    public var maxAttempts: Int
    /// The wait before the second attempt; each later wait doubles, up to `maximumDelay`.
    public var baseDelay: Duration
    public var maximumDelay: Duration
    /// A background session's job (BG-06, ER-13): network errors are retried past `maxAttempts`
    /// until this time, and the last wait ends by it. Statuses still count against `maxAttempts`.
    public var networkRetriesUntil: Date?

    public init(maxAttempts: Int = 5, baseDelay: Duration = .seconds(2), maximumDelay: Duration = .seconds(600), networkRetriesUntil: Date? = nil) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.networkRetriesUntil = networkRetriesUntil
    }

    /// How an attempt ended, as far as retrying is concerned.
    public enum AttemptFailure: Sendable, Equatable {
        /// The server answered with this status (and maybe a Retry-After header value).
        case httpStatus(Int, retryAfter: String?)
        /// The transfer failed on the client side.
        case transfer(TransferError.Code)
        /// The gateway's own storage (the database holding a session's cookie jar or the tenant's
        /// cache index) could not be read before the transfer: it is usually back soon.
        case gatewayStorage
    }

    /// 5xx, 429 and 408 are worth another try; other statuses will answer the same way again.
    public static func isRetryable(_ failure: AttemptFailure) -> Bool {
        switch failure {
        case .gatewayStorage:
            return true
        case .httpStatus(let status, _):
            return status == 408 || status == 429 || (500...599).contains(status)
        case .transfer(let code):
            switch code {
            case .timedOut, .cannotConnectToHost, .cannotConnectToProxy, .networkConnectionLost, .badServerResponse,
                .cannotFindHost, .secureConnectionFailed:
                return true
            default:
                // Policy refusals, bad requests, certificates, redirect loops and cancellation will not
                // get better by waiting. Nor, within a backoff's minutes, will a full disk
                // (`insufficientStorage`): another attempt would fill it again while other jobs need it.
                return false
            }
        }
    }

    /// The wait before the next attempt, or nil when the job should fail now. `attempt` is the number of
    /// the attempt that just failed (1 for the first). `random` yields a value in 0..<1 for the jitter.
    public func delayBeforeRetry(
        after failure: AttemptFailure, attempt: Int, now: Date = Date(), random: () -> Double = { Double.random(in: 0..<1) }
    ) -> Duration? {
        guard Self.isRetryable(failure) else { return nil }
        if case .transfer = failure, let until = networkRetriesUntil {
            let left = until.timeIntervalSince(now)
            guard left > 0 else { return nil }
            return min(backoff(attempt: attempt, random: random), .milliseconds(Int64(left * 1000)))
        }
        guard attempt < maxAttempts else { return nil }
        if case .httpStatus(_, let retryAfter?) = failure, let asked = Self.parseRetryAfter(retryAfter, now: now) {
            return min(asked, maximumDelay)
        }
        return backoff(attempt: attempt, random: random)
    }

    /// Full jitter (half fixed, half random), so that many jobs failing together do not retry together.
    private func backoff(attempt: Int, random: () -> Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let uncapped = baseDelay * (1 << exponent)
        let capped = min(uncapped, maximumDelay)
        return capped / 2 + (capped / 2) * random()
    }

    /// `Retry-After` as delay-seconds (digits only: `+30` and `-1` are not) or an HTTP date
    /// (RFC 9110 §10.2.3, §5.6.7); nil when it is neither.
    package static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            return .seconds(Int(trimmed) ?? Int.max)
        }
        guard let date = HTTPDate.parse(trimmed, now: now) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
    }
}
