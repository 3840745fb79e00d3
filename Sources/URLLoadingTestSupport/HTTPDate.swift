import Foundation

/// IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT", RFC 9110 §5.6.7), for Date, Expires, Last-Modified
/// and If-Modified-Since headers.
enum HTTPDate {
    static func format(_ date: Date) -> String {
        formatter().string(from: date)
    }

    static func parse(_ text: String) -> Date? {
        formatter().date(from: text)
    }

    /// A new one each time: DateFormatter is not safe to share between threads.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
