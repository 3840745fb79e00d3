import Foundation

/// A job's `not_before` (BG-18, the seeds' earliestBeginDate): an RFC 3339 date-time with its offset,
/// read by bytes (ASCII only), at most `maximumDaysAhead` ahead. A time already past means now; one
/// before 1970 is refused as a mistake (and one in the year 0, which RFC 3339 can write, PostgreSQL
/// cannot read: it was a 500).
enum EarliestStart {
    static let maximumDaysAhead = 366

    static let problem = "must be an RFC 3339 date-time with an offset (2026-12-01T08:00:00Z), from 1970 to \(maximumDaysAhead) days ahead"

    static func parse(_ text: String, now: Date = Date()) -> Date? {
        guard text.utf8.count <= 40, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let date = (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
        guard let date, date.timeIntervalSince1970 >= 0, date.timeIntervalSince(now) <= Double(maximumDaysAhead) * 86_400 else {
            return nil
        }
        return roundedUpToTheMillisecond(date)
    }

    /// Timestamps are written to the millisecond, truncating; a time rounded up first is written as
    /// itself or later, never earlier. A whole millisecond stays itself however its binary fraction
    /// falls (.8 may be .7999... or .8000...1): a microsecond's slack before rounding up, a tenth of
    /// a millisecond after it so that truncating keeps it.
    private static func roundedUpToTheMillisecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000 - 0.001).rounded(.up) / 1000 + 0.0001)
    }
}
