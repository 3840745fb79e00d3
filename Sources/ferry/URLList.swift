import Foundation

/// The URLs of an `-i` list file: one a line; blank lines and lines starting with `#` are skipped.
///
/// Every line is checked before anything is fetched, so a typo on line 900 does not leave a batch
/// half done.
struct URLList: Sendable {
    struct Entry: Sendable {
        /// The line as written (trimmed), for messages.
        let text: String
        let url: URL
        let lineNumber: Int
    }

    let entries: [Entry]

    init(contentsOf path: String) throws(UsageError) {
        try InputFile.requireReadableRegularFile(path, argument: "-i \(path)")
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw UsageError("-i \(path): cannot read the file (\(InputFile.reason(error)))")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), source: path)
    }

    init(text: String, source: String) throws(UsageError) {
        var entries: [Entry] = []
        // Split on the byte: in Swift "\r\n" is one Character, which a split on the Character "\n"
        // leaves whole, so a CRLF file would be one line. Trimming drops the CR.
        for (index, bytes) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let line = Self.trimmed(text[bytes.startIndex..<bytes.endIndex])
            if line.isEmpty || line.hasPrefix("#") { continue }
            let url: URL
            do {
                url = try TargetURL.parse(line)
            } catch {
                throw UsageError("\(source):\(index + 1): \(error.description)")
            }
            entries.append(Entry(text: line, url: url, lineNumber: index + 1))
        }
        guard !entries.isEmpty else { throw UsageError("-i \(source): the list has no URLs") }
        self.entries = entries
    }

    /// The line without the whitespace around it. ASCII whitespace is cut byte by byte, because
    /// Foundation's trimming goes through NSString and every line is read before the first request;
    /// a line that starts or ends in other (Unicode) space still goes through Foundation.
    private static func trimmed(_ line: Substring) -> String {
        let isASCIISpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = line.utf8.firstIndex(where: { !isASCIISpace($0) }),
            let last = line.utf8.lastIndex(where: { !isASCIISpace($0) })
        else { return "" }
        let cut = line[first...last]
        if cut.utf8.first! >= 0x80 || cut.utf8.last! >= 0x80 { return cut.trimmingCharacters(in: .whitespacesAndNewlines) }
        return String(cut)
    }
}
