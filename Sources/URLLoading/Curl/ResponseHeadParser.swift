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
        let line = UnsafeRawBufferPointer(rebasing: bytes[..<end])

        if line.starts(with: "HTTP/".utf8) {
            startHead(statusLine: String(decoding: line, as: UTF8.self))
            return nil
        }
        if line.isEmpty {
            guard let statusCode, !(100..<200).contains(statusCode) else {
                self.statusCode = nil
                return nil
            }
            let length = headers["Content-Length"].flatMap { Int64($0) }
            let head = Head(statusCode: statusCode, httpVersion: httpVersion, headers: headers, contentLength: length)
            self.statusCode = nil
            return head
        }
        guard statusCode != nil else { return nil }
        if line[0] == UInt8(ascii: " ") || line[0] == UInt8(ascii: "\t") {
            // An obsolete folded continuation line belongs to the previous field.
            headers.appendToLastValue(String(decoding: Self.trimmingBlanks(line), as: UTF8.self))
            return nil
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = Self.trimmingBlanks(UnsafeRawBufferPointer(rebasing: line[..<colon]))
        let value = Self.trimmingBlanks(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
        if !name.isEmpty { headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)) }
        return nil
    }

    /// The bytes without the spaces and tabs around them (RFC 9110's optional whitespace), in bytes:
    /// Foundation's `trimmingCharacters` goes through NSString on Linux, and every header line of
    /// every response paid for it.
    static func trimmingBlanks(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = 0
        var end = bytes.count
        while start < end, isBlank(bytes[start]) { start += 1 }
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
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
