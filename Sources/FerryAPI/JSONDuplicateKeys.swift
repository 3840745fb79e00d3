import FerryModel

/// Refuses a JSON body in which an object gives a field more than once, naming each such field.
///
/// RFC 8259 §4 leaves the meaning of such an object to the reader, and readers differ: the checks
/// that read a body through `JSONSerialization` (NUL, unknown fields) saw the last of two `request`s,
/// while `JSONDecoder` built the job from the first, so a NUL in the first reached PostgreSQL (a 500)
/// and a misspelt field in it was silently ignored. Refused, nothing depends on which one a reader keeps.
///
/// Keys are compared as the strings they spell: `"kind"` and `"\u006bind"` are the same field. Text
/// that is not JSON (or nested deeper than `maximumDepth`) yields no errors here: decoding refuses it.
enum JSONDuplicateKeys {
    static let message = "is given more than once in its object; send each field once"
    /// As deep as `JSONDecoder` reads.
    static let maximumDepth = 512

    static func fieldErrors(in bytes: [UInt8]) -> [FieldError] {
        var reader = Reader(bytes: bytes)
        var duplicates: [String] = []
        guard reader.value(path: [], depth: 0, duplicates: &duplicates) else { return [] }
        var reported: Set<String> = []
        return duplicates.filter { reported.insert($0).inserted }.map { FieldError(field: $0, message: message) }
    }

    /// A reader of JSON's structure that keeps only object keys, unescaped.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// Reads one value, recording the path of every key its objects repeat; false when the text
        /// is not JSON.
        mutating func value(path: [String], depth: Int, duplicates: inout [String]) -> Bool {
            guard depth <= JSONDuplicateKeys.maximumDepth else { return false }
            skipSpace()
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var seen: Set<[UInt8]> = []
                skipSpace()
                if take(UInt8(ascii: "}")) { return true }
                repeat {
                    skipSpace()
                    guard let key = string() else { return false }
                    let field = path + [String(decoding: key, as: UTF8.self)]
                    if !seen.insert(key).inserted { duplicates.append(field.joined(separator: ".")) }
                    skipSpace()
                    guard take(UInt8(ascii: ":")), value(path: field, depth: depth + 1, duplicates: &duplicates) else { return false }
                    skipSpace()
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "}"))
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if take(UInt8(ascii: "]")) { return true }
                var element = 0
                repeat {
                    guard value(path: path + [String(element)], depth: depth + 1, duplicates: &duplicates) else { return false }
                    element += 1
                    skipSpace()
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "]"))
            case UInt8(ascii: "\""):
                return string() != nil
            default:
                // A number or a literal: its spelling is the decoder's to check.
                let start = index
                while index < bytes.count, !Self.endsScalar(bytes[index]) { index += 1 }
                return index > start
            }
        }

        /// The UTF-8 of the string starting here, escapes resolved; nil when there is none.
        private mutating func string() -> [UInt8]? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return text
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        text.append(contentsOf: Array(String(Character(scalar)).utf8))
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                    default: return nil
                    }
                default:
                    text.append(byte)
                }
            }
            return nil
        }

        /// The scalar of a `\u` escape whose `\u` was read: four hex digits, and a low surrogate's
        /// escape after a high one.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let unit = hexUnit() else { return nil }
            guard (0xD800...0xDBFF).contains(unit) else { return Unicode.Scalar(unit) }
            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else {
                return nil
            }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        }

        private mutating func hexUnit() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var unit: UInt32 = 0
            for byte in bytes[index..<(index + 4)] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                unit = unit << 4 | UInt32(digit)
            }
            index += 4
            return unit
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        }

        private static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        private static func endsScalar(_ byte: UInt8) -> Bool {
            isSpace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
        }
    }
}
