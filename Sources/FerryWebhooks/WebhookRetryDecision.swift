import FerryStore
import Foundation

/// What a delivery attempt's answer means for the delivery: 2xx delivered; 410 Gone stops it (and
/// disables an endpoint); anything else, and no answer at all, is retried on the schedule, after the
/// receiver's `Retry-After` instead when it sent one with a 429 or 503.
enum WebhookRetryDecision {
    /// `Retry-After` beyond this is cut to it: a receiver cannot park a delivery for months.
    static let longestRetryAfter = Duration.seconds(86_400)

    static func next(status: Int?, retryAfter: String?, failuresBefore: Int, schedule: WebhookRetrySchedule) -> WebhookDeliveryQueue.Next {
        if let status, (200..<300).contains(status) { return .delivered }
        if status == 410 { return .failed(disablesEndpoint: true) }
        guard let scheduled = schedule.delay(afterFailures: failuresBefore + 1) else { return .failed(disablesEndpoint: false) }
        if status == 429 || status == 503, let retryAfter, let asked = Self.retryAfter(retryAfter) {
            return .retry(after: min(asked, longestRetryAfter))
        }
        return .retry(after: scheduled)
    }

    /// `Retry-After: <seconds>` or `Retry-After: <HTTP date>`.
    static func retryAfter(_ text: String, now: Date = Date()) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? .seconds(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return .milliseconds(max(0, Int64(date.timeIntervalSince(now) * 1000)))
    }
}
