/// JSON text written field by field, without `Codable`. For the few parameters that every job pays
/// for many times over (its end, written for each attempt), where `JSONEncoder`'s generic path was
/// the largest single item of ferryd's CPU in bench P3; everything else keeps `Codable`.
///
/// The caller writes a well-formed shape (a key before each value inside an object); the writer
/// places the commas and escapes strings as RFC 8259 requires: quote, backslash and the control
/// characters below U+0020 (as `\u00XX`). Everything else is copied as UTF-8, which a Swift string
/// always is.
package struct JSONText {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    package private(set) var bytes: [UInt8] = []
    /// A value or member was written at this level, so the next one needs a comma.
    private var needsComma = false

    package init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: containers

    package mutating func object(_ members: (inout JSONText) throws -> Void) rethrows {
        startValue()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        try members(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func array<Elements: Sequence>(
        _ elements: Elements, _ element: (inout JSONText, Elements.Element) throws -> Void
    ) rethrows {
        startValue()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for value in elements { try element(&self, value) }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's name; its value comes next.
    package mutating func key(_ name: StaticString) {
        startValue()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: values

    package mutating func string(_ value: String) {
        startValue()
        bytes.append(UInt8(ascii: "\""))
        if !value.utf8.contains(where: Self.needsEscape) {
            bytes.append(contentsOf: value.utf8)
        } else {
            appendEscaped(value)
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private mutating func appendEscaped(_ value: String) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case ..<0x20:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
    }

    package mutating func integer(_ value: Int64) {
        startValue()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    package mutating func integer(_ value: Int) {
        integer(Int64(value))
    }

    package mutating func bool(_ value: Bool) {
        startValue()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// A value that is JSON text already (from `JSONEncoder`, for a rare nested value).
    package mutating func encoded(_ json: some Collection<UInt8>) {
        startValue()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    // MARK: members whose absence means nil, as `encodeIfPresent` leaves them out

    package mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    package mutating func member(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        key(name)
        integer(value)
    }

    package mutating func member(_ name: StaticString, _ value: Int?) {
        member(name, value.map(Int64.init))
    }

    package mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    private mutating func startValue() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}
