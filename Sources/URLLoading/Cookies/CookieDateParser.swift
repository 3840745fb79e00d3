import Foundation

/// The cookie date algorithm of RFC 6265 §5.1.1: a tolerant reading that takes every format servers
/// send in `Expires` (RFC 1123 "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT",
/// asctime "Sun Nov  6 08:49:37 1994", and their variations) by picking the time, day of month, month
/// and year out of the tokens in any order.
enum CookieDateParser {
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var dayOfMonth: Int?
        var month: Int?
        var year: Int?

        for token in tokens(of: text) {
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if dayOfMonth == nil, let day = leadingDigits(token, minimum: 1, maximum: 2) {
                dayOfMonth = day
            } else if month == nil, let parsed = parseMonth(token) {
                month = parsed
            } else if year == nil, let parsed = leadingDigits(token, minimum: 2, maximum: 4) {
                year = parsed
            }
        }
        guard let time, let dayOfMonth, let month, var year else { return nil }
        // Two-digit years: 70-99 are 19xx, 00-69 are 20xx (§5.1.1 steps 3 and 4).
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(dayOfMonth), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else {
            return nil
        }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        (components.year, components.month, components.day) = (year, month, dayOfMonth)
        (components.hour, components.minute, components.second) = (time.hour, time.minute, time.second)
        // An impossible day (30 February) is a failure, not a roll-over into March.
        guard components.isValidDate, let date = components.date else { return nil }
        return date
    }

    /// Tokens are separated by the delimiters of §5.1.1: everything but digits, letters, ':' and a
    /// few other non-delimiting characters.
    private static func tokens(of text: String) -> [Substring] {
        text.split { character in
            guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1, scalar.isASCII else {
                return false
            }
            let value = scalar.value
            return value == 0x09 || (0x20...0x2F).contains(value) || (0x3B...0x40).contains(value)
                || (0x5B...0x60).contains(value) || (0x7B...0x7E).contains(value)
        }
    }

    /// `hms-time = time-field ":" time-field ":" time-field`, each one or two digits, then anything.
    private static func parseTime(_ token: Substring) -> (hour: Int, minute: Int, second: Int)? {
        let fields = token.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3,
            let hour = leadingDigits(fields[0], minimum: 1, maximum: 2, wholeToken: true),
            let minute = leadingDigits(fields[1], minimum: 1, maximum: 2, wholeToken: true),
            let second = leadingDigits(fields[2], minimum: 1, maximum: 2)
        else { return nil }
        return (hour, minute, second)
    }

    /// `minimum`...`maximum` digits at the start, followed by a non-digit or the end (or nothing at
    /// all with `wholeToken`).
    private static func leadingDigits(_ token: Substring, minimum: Int, maximum: Int, wholeToken: Bool = false) -> Int? {
        let digits = token.prefix { $0.isASCII && $0.isNumber }
        guard (minimum...maximum).contains(digits.count) else { return nil }
        if wholeToken, digits.count != token.count { return nil }
        return Int(digits)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func parseMonth(_ token: Substring) -> Int? {
        guard token.count >= 3 else { return nil }
        return months.firstIndex(of: token.prefix(3).lowercased()).map { $0 + 1 }
    }
}
