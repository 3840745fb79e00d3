import Foundation

/// Assembles an HTTP response head from the lines curl's header callback hands over.
///
/// curl reports every head it reads: interim 1xx heads (100 Continue, 103 Early Hints) come before the
/// final one and are skipped. A head ends with an empty line.
struct ResponseHeadParser {
    struct Head: Equatable {
        var statusCode: Int
        var httpVersion: String
        var headers: HTTPHeaders
        /// Content-Length, when the response has one.
        var contentLength: Int64?
    }

    private var statusCode: Int?
    private var httpVersion = ""
    private var headers = HTTPHeaders()

    /// Feeds one line (with its CRLF); returns the head when this line completed a final one.
    mutating func consume(line bytes: UnsafeRawBufferPointer) -> Head? {
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)

        if line.hasPrefix("HTTP/") {
            startHead(statusLine: line)
            return nil
        }
        if line.isEmpty {
            guard let statusCode, !(100..<200).contains(statusCode) else {
                self.statusCode = nil
                return nil
            }
            let length = headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            let head = Head(statusCode: statusCode, httpVersion: httpVersion, headers: headers, contentLength: length)
            self.statusCode = nil
            return head
        }
        guard statusCode != nil else { return nil }
        if line.first == " " || line.first == "\t" {
            // An obsolete folded continuation line belongs to the previous field.
            headers.appendToLastValue(line.trimmingCharacters(in: .whitespaces))
            return nil
        }
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        if !name.isEmpty { headers.add(name: name, value: value) }
        return nil
    }

    private mutating func startHead(statusLine: String) {
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        headers = HTTPHeaders()
        statusCode = parts.count > 1 ? Int(parts[1]) : nil
        switch parts.first {
        case "HTTP/2", "HTTP/2.0": httpVersion = "HTTP/2"
        case "HTTP/3": httpVersion = "HTTP/3"
        case let version?: httpVersion = String(version)
        case nil: httpVersion = "HTTP/1.1"
        }
    }
}
