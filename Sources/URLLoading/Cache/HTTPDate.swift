import Foundation

/// HTTP-date as RFC 9110 §5.6.7 defines it, and nothing else: the IMF-fixdate
/// ("Sun, 06 Nov 1994 08:49:37 GMT") and the two obsolete formats a recipient must still accept,
/// rfc850-date ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime-date ("Sun Nov  6 08:49:37 1994").
/// The grammar is case-sensitive; two-digit years, "UTC", missing parts or any other variation are not
/// dates, and each field's rule says what an invalid one means (an invalid `Expires` is already
/// expired, RFC 9111 §5.3). Cookies have their own, lenient algorithm (`CookieDateParser`).
public enum HTTPDate {
    /// The date `text` names, or nil when it is not an HTTP-date. `now` places an rfc850-date's
    /// two-digit year: at most 50 years ahead, else a century earlier (§5.6.7).
    public static func parse(_ text: String, now: Date = Date()) -> Date? {
        let bytes = Array(text.utf8.drop(while: isWhitespace).reversed().drop(while: isWhitespace).reversed())
        return imfFixdate(bytes) ?? rfc850Date(bytes, now: now) ?? asctimeDate(bytes)
    }

    /// The IMF-fixdate every sender must generate.
    public static func format(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civilDate(fromDays: days)
        // 1970-01-01 was a Thursday.
        let weekday = Int(((days % 7) + 7 + 3) % 7)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(shortDays[weekday]), \(two(day)) \(months[month - 1]) \(yearText) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    // MARK: - The three formats

    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `day-name "," SP 2DIGIT SP month SP 4DIGIT SP time-of-day SP "GMT"`.
    private static func imfFixdate(_ text: [UInt8]) -> Date? {
        var reader = Reader(text)
        guard reader.word(in: shortDays) != nil, reader.literal(", "), let day = reader.digits(2), reader.literal(" "),
            let month = reader.word(in: months), reader.literal(" "), let year = reader.digits(4), reader.literal(" "),
            let time = reader.timeOfDay(), reader.literal(" GMT"), reader.atEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// `day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP time-of-day SP "GMT"`.
    private static func rfc850Date(_ text: [UInt8], now: Date) -> Date? {
        var reader = Reader(text)
        guard reader.word(in: longDays) != nil, reader.literal(", "), let day = reader.digits(2), reader.literal("-"),
            let month = reader.word(in: months), reader.literal("-"), let shortYear = reader.digits(2), reader.literal(" "),
            let time = reader.timeOfDay(), reader.literal(" GMT"), reader.atEnd
        else { return nil }
        let currentYear = civilDate(fromDays: Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))).year
        var year = currentYear - currentYear % 100 + shortYear
        if year > currentYear + 50 { year -= 100 }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// `day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP 4DIGIT`.
    private static func asctimeDate(_ text: [UInt8]) -> Date? {
        var reader = Reader(text)
        guard reader.word(in: shortDays) != nil, reader.literal(" "), let month = reader.word(in: months), reader.literal(" ")
        else { return nil }
        let day: Int?
        if reader.literal(" ") { day = reader.digits(1) } else { day = reader.digits(2) }
        guard let day, reader.literal(" "), let time = reader.timeOfDay(), reader.literal(" "), let year = reader.digits(4),
            reader.atEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: time)
    }

    /// A real calendar day and time; a leap second (60) counts as the last second of its minute.
    private static func date(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Date? {
        guard (1...daysIn(month: month, year: year)).contains(day), time.hour <= 23, time.minute <= 59, time.second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + min(time.second, 59))
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = Int64((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shifted + 2) / 5 + 1)
        let month = Int(shifted < 10 ? shifted + 3 : shifted - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// Reads the grammar's pieces left to right; each returns nil (or false) without a match.
    private struct Reader {
        private let text: [UInt8]
        private var position = 0

        init(_ text: [UInt8]) { self.text = text }

        var atEnd: Bool { position == text.count }

        mutating func literal(_ expected: String) -> Bool {
            let bytes = Array(expected.utf8)
            guard text.count - position >= bytes.count, Array(text[position..<position + bytes.count]) == bytes else {
                return false
            }
            position += bytes.count
            return true
        }

        /// The index of the word of `words` that comes next, compared case-sensitively.
        mutating func word(in words: [String]) -> Int? {
            for (index, word) in words.enumerated() where literal(word) { return index }
            return nil
        }

        mutating func digits(_ count: Int) -> Int? {
            guard text.count - position >= count else { return nil }
            var value = 0
            for byte in text[position..<position + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += count
            return value
        }

        /// `2DIGIT ":" 2DIGIT ":" 2DIGIT`.
        mutating func timeOfDay() -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"), let second = digits(2) else {
                return nil
            }
            return (hour, minute, second)
        }
    }
}
