/// A migration's SQL cut into single statements, each with the line it starts on.
///
/// PostgresNIO speaks PostgreSQL's extended query protocol, which takes exactly one statement per
/// query, so a file with many statements has to be cut at its semicolons, the way psql does it:
/// a semicolon inside a string ('...', E'...'), a quoted identifier ("..."), a dollar-quoted body
/// ($$...$$, $tag$...$tag$) or a comment (-- ..., nested /* ... */) does not end a statement.
///
/// Not supported: SQL-standard function bodies (`BEGIN ATOMIC ... END`), whose inner semicolons
/// psql tracks by parsing; write such functions with a dollar-quoted body instead.
enum MigrationScript {
    struct Statement: Sendable, Equatable {
        let sql: String
        /// 1-based line of the statement's first character that is not blank or a comment.
        let line: Int
    }

    static func statements(in sql: String) -> [Statement] {
        let bytes = Array(sql.utf8)
        var statements: [Statement] = []
        var start = 0
        var line = 1
        var firstContentLine: Int?
        var index = 0

        func finishStatement(upTo end: Int) {
            if let firstContentLine {
                let text = String(decoding: bytes[start..<end], as: UTF8.self)
                statements.append(Statement(sql: text.trimmingWhitespace(), line: firstContentLine))
            }
            firstContentLine = nil
            start = end + 1
        }
        /// Moves `index` past the next occurrence of `terminator`, counting lines; to the end if none.
        func skip(past terminator: [UInt8]) {
            while index < bytes.count {
                if bytes[index...].starts(with: terminator) {
                    index += terminator.count
                    return
                }
                if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                index += 1
            }
        }

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\n"):
                line += 1
                index += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "-") where bytes[index...].starts(with: Array("--".utf8)):
                // A line comment: up to (not past) the line break, which the loop then counts.
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "/") where bytes[index...].starts(with: Array("/*".utf8)):
                skipBlockComment(bytes, &index, &line)
            case UInt8(ascii: ";"):
                finishStatement(upTo: index)
                index += 1
            default:
                if firstContentLine == nil { firstContentLine = line }
                switch byte {
                case UInt8(ascii: "'"):
                    index += 1
                    skipQuoted(bytes, &index, &line, quote: UInt8(ascii: "'"), backslashEscapes: isEscapeStringPrefix(bytes, before: index - 1))
                case UInt8(ascii: "\""):
                    index += 1
                    skipQuoted(bytes, &index, &line, quote: UInt8(ascii: "\""), backslashEscapes: false)
                case UInt8(ascii: "$"):
                    if let tag = dollarQuoteTag(bytes, at: index) {
                        index += tag.count
                        skip(past: tag)
                    } else {
                        index += 1
                    }
                default:
                    index += 1
                }
            }
        }
        finishStatement(upTo: bytes.count)
        return statements
    }

    /// Past a '...' string or "..." identifier (a doubled quote is an escaped quote).
    private static func skipQuoted(_ bytes: [UInt8], _ index: inout Int, _ line: inout Int, quote: UInt8, backslashEscapes: Bool) {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") { line += 1 }
            if backslashEscapes, byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            index += 1
            if byte == quote {
                if index < bytes.count, bytes[index] == quote {
                    index += 1
                } else {
                    return
                }
            }
        }
    }

    /// Past a /* ... */ comment, which PostgreSQL lets nest.
    private static func skipBlockComment(_ bytes: [UInt8], _ index: inout Int, _ line: inout Int) {
        var depth = 0
        while index < bytes.count {
            if bytes[index...].starts(with: Array("/*".utf8)) {
                depth += 1
                index += 2
            } else if bytes[index...].starts(with: Array("*/".utf8)) {
                depth -= 1
                index += 2
                if depth == 0 { return }
            } else {
                if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                index += 1
            }
        }
    }

    /// E'...' (or e'...'): a string where backslash escapes the next character.
    private static func isEscapeStringPrefix(_ bytes: [UInt8], before quoteIndex: Int) -> Bool {
        guard quoteIndex >= 1, bytes[quoteIndex - 1] == UInt8(ascii: "E") || bytes[quoteIndex - 1] == UInt8(ascii: "e") else {
            return false
        }
        return quoteIndex < 2 || !isIdentifierByte(bytes[quoteIndex - 2])
    }

    /// The opening `$tag$` (or `$$`) at `index`, or nil when this `$` is not one: a positional
    /// parameter (`$1`) or part of an identifier (`a$b`).
    private static func dollarQuoteTag(_ bytes: [UInt8], at index: Int) -> [UInt8]? {
        if index > 0, isIdentifierByte(bytes[index - 1]) {
            return nil
        }
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "$") {
            let byte = bytes[end]
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isIdentifierByte(byte), !(isDigit && end == index + 1) else {
                return nil
            }
            end += 1
        }
        guard end < bytes.count else { return nil }
        return Array(bytes[index...end])
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte >= 0x80
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
