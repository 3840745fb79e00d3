/// Byte-level helpers for the ASCII parts of HTTP fields: names, tokens and the whitespace around
/// values. Foundation's `trimmingCharacters(in:)` goes through `NSString` on Linux and `lowercased()`
/// is Unicode-aware; both allocate, and they ran for every header of every response on the loop
/// thread, where they were a measurable part of a small file's cost.
extension Substring {
    /// Without the optional whitespace (SP and HTAB, RFC 9110 §5.6.3) at either end.
    var trimmingFieldWhitespace: Substring {
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }),
            let last = utf8.lastIndex(where: { !isWhitespace($0) })
        else { return self[endIndex...] }
        return self[first...last]
    }
}

extension String {
    /// Without the optional whitespace (SP and HTAB, RFC 9110 §5.6.3) at either end.
    var trimmingFieldWhitespace: Substring { self[...].trimmingFieldWhitespace }
}

extension StringProtocol {
    /// Equal to `other` when ASCII letters are compared without case; other bytes must match exactly.
    func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        utf8.elementsEqual(other.utf8) { Self.lowercasedASCII($0) == Self.lowercasedASCII($1) }
    }

    /// With ASCII letters in lower case; other bytes as they are.
    var lowercasedASCII: String {
        if !utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return String(self) }
        return String(decoding: utf8.map(Self.lowercasedASCII), as: UTF8.self)
    }

    private static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
