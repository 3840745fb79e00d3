import Foundation

/// How long a failed delivery waits before its next attempt: `FERRY_WEBHOOK_RETRY_SCHEDULE`, a comma
/// separated list of durations (`5s`, `5m`, `2h`, `1d`), one per retry; after the last one the
/// delivery has failed. Each wait gets up to ±20 % jitter, so receivers that come back are not hit by
/// every waiting delivery in the same second.
public struct WebhookRetrySchedule: Sendable, Equatable, CustomStringConvertible {
    /// Standard Webhooks' suggestion: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then daily to about 3 days.
    public static let standard = WebhookRetrySchedule(delays: [
        .seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18_000), .seconds(36_000),
        .seconds(86_400), .seconds(86_400), .seconds(86_400),
    ])

    public var delays: [Duration]

    public init(delays: [Duration]) {
        self.delays = delays
    }

    /// Parses `5s,5m,30m`; nil when any part is not a positive number with a unit of s, m, h or d.
    public init?(parsing text: String) {
        var delays: [Duration] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard let unit = item.last, let number = Int(item.dropLast()), number > 0 else { return nil }
            let seconds: Int
            switch unit {
            case "s": seconds = number
            case "m": seconds = number * 60
            case "h": seconds = number * 3600
            case "d": seconds = number * 86_400
            default: return nil
            }
            delays.append(.seconds(seconds))
        }
        guard !delays.isEmpty else { return nil }
        self.delays = delays
    }

    /// The wait after the `failures`-th failed attempt (1-based), jittered; nil when no retry is left.
    package func delay(afterFailures failures: Int) -> Duration? {
        guard failures >= 1, failures <= delays.count else { return nil }
        return delays[failures - 1] * Double.random(in: 0.8...1.2)
    }

    public var description: String {
        delays.map { "\($0.components.seconds)s" }.joined(separator: ",")
    }
}
