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
        // Splitting on "\n" and trimming handles CRLF files too.
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
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
}
