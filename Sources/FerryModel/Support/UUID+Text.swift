import Foundation
import URLLoading

extension UUID {
    /// How the API writes ids: lower case, as RFC 9562 recommends and PostgreSQL prints them. Ids
    /// are read in either case.
    ///
    /// Written byte by byte into one string: every job view, event and log line carries ids, and
    /// `uuidString.lowercased()` made two strings through Foundation for each.
    package var lowercasedString: String {
        String(unsafeUninitializedCapacity: 36) { text in
            withUnsafeBytes(of: uuid) { bytes in
                var at = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    text[at] = HexDigit.lowercase(byte >> 4)
                    text[at + 1] = HexDigit.lowercase(byte & 0x0F)
                    at += 2
                }
            }
            return 36
        }
    }

    /// Reads an id in RFC 9562's text form (`8-4-4-4-12` hex digits, either case), as
    /// `UUID(uuidString:)` does, without the `sscanf` Foundation parses it with on Linux: ids are
    /// read from every request path that names a job, session or credential.
    package init?(idText text: String) {
        var text = text
        let parsed: uuid_t? = text.withUTF8 { bytes -> uuid_t? in
            guard bytes.count == 36 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let complete = withUnsafeMutableBytes(of: &value) { out -> Bool in
                var at = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        guard bytes[at] == UInt8(ascii: "-") else { return false }
                        at += 1
                    }
                    guard let high = HexDigit.value(bytes[at]), let low = HexDigit.value(bytes[at + 1]) else { return false }
                    out[index] = high << 4 | low
                    at += 2
                }
                return true
            }
            return complete ? value : nil
        }
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }
}
