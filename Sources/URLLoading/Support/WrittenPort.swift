/// The port a URL's text writes after its host. Not `URL.port` or `URLComponents.port`: they are
/// nil for a port too large for an `Int`, as for none, so `http://h:99999999999999999999/` would
/// pass for a URL without a port.
package enum WrittenPort {
    /// The port as `urlText` writes it (empty for `host:`, which means the scheme's), nil when it
    /// names none or has no `scheme://` authority.
    ///
    /// Read byte by byte: every delimiter is ASCII, and comparing Characters would let a combining
    /// mark after a `/` or `:` hide it (and cost a grapheme break per step, for every URL of a list).
    package static func of(_ urlText: String) -> Substring? {
        let bytes = urlText.utf8
        guard let separator = firstIndex(of: "://", in: bytes) else { return nil }
        let start = bytes.index(separator, offsetBy: 3)
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        var authority = bytes[start..<end]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        // An IPv6 literal's colons are inside its brackets.
        if let close = authority.lastIndex(of: UInt8(ascii: "]")) { authority = authority[authority.index(after: close)...] }
        guard let colon = authority.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        // Every index here is at or just after an ASCII byte, so it is a scalar boundary of the text.
        return urlText[bytes.index(after: colon)..<authority.endIndex]
    }

    /// Whether `port` is a TCP port one can connect to: digits for 1 to 65535.
    package static func isTCPPort(_ port: Substring) -> Bool {
        guard port.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int(port) else { return false }
        return (1...65535).contains(value)
    }

    private static func firstIndex(of needle: StaticString, in bytes: String.UTF8View) -> String.Index? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index...].starts(with: pattern) { return index }
            index = bytes.index(after: index)
        }
        return nil
    }
}
