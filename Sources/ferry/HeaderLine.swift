/// One `-H 'Name: value'` argument.
///
/// Checked here rather than left to the engine so a typo is a usage error before any connection is
/// made. An empty value (`-H 'X-Empty:'`) sends the header with an empty value.
struct HeaderLine: Sendable, Equatable {
    let name: String
    let value: String

    init(parsing argument: String) throws(UsageError) {
        guard let colon = argument.firstIndex(of: ":") else {
            throw UsageError("-H '\(argument)': expected 'Name: value' (no colon found)")
        }
        let name = String(argument[..<colon])
        let value = argument[argument.index(after: colon)...].trimmingWhitespace()
        guard Self.isToken(name) else {
            throw UsageError("-H '\(argument)': '\(name)' is not a valid header name")
        }
        guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw UsageError("-H '\(name)': the value must not contain line breaks or NUL")
        }
        self.name = name
        self.value = value
    }

    /// Every `-H` argument of a command line, in order.
    static func parsing(_ arguments: [String]) throws(UsageError) -> [HeaderLine] {
        var lines: [HeaderLine] = []
        for argument in arguments { lines.append(try HeaderLine(parsing: argument)) }
        return lines
    }

    /// RFC 9110 token: visible ASCII except separators. Spaces (e.g. `Name : value`) are not allowed.
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && scalar.value > 32 && scalar.value < 127
                && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains(scalar)
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
