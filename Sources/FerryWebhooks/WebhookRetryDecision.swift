import FerryModel
import FerryStore
import Foundation
import URLLoading

/// What a delivery attempt's answer means for the delivery: 2xx delivered; 410 Gone stops it (and
/// disables an endpoint); a request that can never be sent (the SSRF guard refuses the address, the
/// URL is unusable) stops it at once; anything else, and no answer at all, is retried on the
/// schedule, after the receiver's `Retry-After` instead when it sent one with a 429 or 503.
enum WebhookRetryDecision {
    /// `Retry-After` beyond this is cut to it: a receiver cannot park a delivery for months.
    static let longestRetryAfter = Duration.seconds(86_400)

    /// Failures that the same request meets every time: retrying them only delays the verdict.
    static let permanentFailures: Set<TransferError.Code> = [.destinationForbidden, .badURL, .unsupportedURL]

    static func next(
        status: Int?, retryAfter: String?, failuresBefore: Int, schedule: WebhookRetrySchedule, failure: TransferError.Code? = nil
    ) -> WebhookDeliveryQueue.Next {
        if let status, (200..<300).contains(status) { return .delivered }
        if status == 410 { return .failed(disablesEndpoint: true) }
        if let failure, permanentFailures.contains(failure) { return .failed(disablesEndpoint: false) }
        guard let scheduled = schedule.delay(afterFailures: failuresBefore + 1) else { return .failed(disablesEndpoint: false) }
        if status == 429 || status == 503, let retryAfter, let asked = Self.retryAfter(retryAfter) {
            return .retry(after: min(asked, longestRetryAfter))
        }
        return .retry(after: scheduled)
    }

    /// `Retry-After: <seconds>` or `Retry-After: <HTTP date>`, read as a job's retry reads it.
    static func retryAfter(_ text: String, now: Date = Date()) -> Duration? {
        RetryPolicy.parseRetryAfter(text, now: now)
    }
}
