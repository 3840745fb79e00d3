import Foundation

/// Splits the body of a `multipart/x-mixed-replace` response into its parts as the bytes stream in,
/// so that each part can be delivered as a response of its own (LC-10, LG-05).
///
/// The syntax is RFC 2046 §5.1.1's: a preamble (ignored), then parts, each after a delimiter line
/// `--boundary` (the CRLF before it belongs to the delimiter, not to the part), optional transport
/// padding (spaces, tabs) and CRLF, then its header block ending with an empty line, then its body;
/// the close delimiter `--boundary--` ends the last part and what follows (the epilogue) is ignored.
///
/// Memory is bounded whatever the stream: body bytes are handed out as ranges of the buffer being
/// parsed, never copied; at most the delimiter's length (≤ 74 bytes) is held back across buffers
/// (bytes that may begin a delimiter), and a part's header block is collected up to
/// `maximumPartHeadBytes`, beyond which parsing fails. A delimiter split across curl's write
/// callbacks is found all the same.
///
/// Pull-style (`next(in:at:)` returns one piece at a time): the driver handles each piece, and may
/// stop after a part's head to ask the caller about it, with nothing of the parser borrowed meanwhile.
struct MultipartReplaceParser {
    /// The largest header block of one part. Real parts carry a few short fields (Content-Type,
    /// Content-Length); a bigger block is a broken or hostile stream, refused rather than buffered.
    static let maximumPartHeadBytes = 16 << 10
    /// The most transport padding a delimiter line may carry (RFC 2046 sets no limit; a stream of
    /// blanks must not go on for ever).
    static let maximumPaddingBytes = 1024

    enum Piece: Equatable {
        /// A part's header block is complete: its response (the part's headers, with the outer
        /// response's status, HTTP version and URL).
        case partStarted(TransferResponse)
        /// Bytes of the current part's body: `bytes[range]` of the buffer being parsed.
        case body(Range<Int>)
        /// The first `count` bytes of the delimiter, held back at the end of an earlier buffer, turned
        /// out to be body bytes of the current part: `delimiterPrefix(count)`.
        case heldBody(count: Int)
        /// The current part ended (a delimiter followed it, or the response ended): complete.
        case partEnded(index: Int, response: TransferResponse, length: Int64)
    }

    /// The response whose body this is.
    let outer: TransferResponse
    /// CRLF "--" boundary.
    private let delimiter: [UInt8]

    private enum State {
        /// Before the first delimiter; `matched` bytes of the delimiter were seen last.
        case preamble(matched: Int)
        /// The rest of a delimiter line: "--" for the close delimiter, padding, CRLF.
        case delimiterLine(dashes: Int, padding: Int, sawCR: Bool)
        /// A part's header block, collected in `head`.
        case head
        /// A part's body; the last `matched` bytes seen may begin a delimiter and are held back.
        case body(matched: Int)
        /// After the close delimiter: nothing more is a part.
        case epilogue
    }

    private var state: State
    private var head: [UInt8] = []
    private var pendingPartEnd = false
    private(set) var partsStarted = 0
    private var currentPart: TransferResponse?
    private var partLength: Int64 = 0

    /// A parser for `response` when it is `multipart/x-mixed-replace` with a usable boundary; nil
    /// otherwise (no boundary parameter, an empty one or one RFC 2046 does not allow: longer than
    /// 70 characters, or with a control or non-ASCII character), and the response is then a plain one.
    init?(response: TransferResponse) {
        guard response.mimeType == "multipart/x-mixed-replace", let contentType = response.headers["Content-Type"],
              let boundary = Self.boundary(in: contentType)
        else { return nil }
        outer = response
        delimiter = Array("\r\n--".utf8) + Array(boundary.utf8)
        // The body may open with the delimiter line itself, without a CRLF before it.
        state = .preamble(matched: 2)
    }

    /// The `boundary` parameter of a Content-Type value, unquoted; nil when missing or unusable.
    static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingFieldWhitespace.equalsIgnoringASCIICase("boundary") else { continue }
            var value = String(pair[1].trimmingFieldWhitespace)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            let usable = (1...70).contains(value.utf8.count) && value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
            return usable ? value : nil
        }
        return nil
    }

    /// The first `count` bytes of the delimiter, for `.heldBody`.
    func delimiterPrefix(_ count: Int) -> [UInt8] {
        Array(delimiter.prefix(count))
    }

    /// The next piece found in `bytes` from `index` (advanced past what it covers), or nil once every
    /// byte of `bytes` is taken (what may begin a delimiter is held back for the next buffer).
    mutating func next(in bytes: UnsafeRawBufferPointer, at index: inout Int) throws(TransferError) -> Piece? {
        if pendingPartEnd { return endPart() }
        while index < bytes.count {
            switch state {
            case .epilogue:
                index = bytes.count
            case .preamble(let matched):
                switch scan(bytes, from: index, matched: matched) {
                case .found(_, let after):
                    index = after
                    state = .delimiterLine(dashes: 0, padding: 0, sawCR: false)
                case .falseStart:
                    state = .preamble(matched: 0)
                case .exhausted(_, let held):
                    index = bytes.count
                    state = .preamble(matched: held)
                }
            case .body(let matched):
                let start = index
                switch scan(bytes, from: index, matched: matched) {
                case .found(let bodyEnd, let after):
                    index = after
                    state = .delimiterLine(dashes: 0, padding: 0, sawCR: false)
                    pendingPartEnd = true
                    guard bodyEnd > start else { return endPart() }
                    partLength += Int64(bodyEnd - start)
                    return .body(start..<bodyEnd)
                case .falseStart(let held):
                    state = .body(matched: 0)
                    partLength += Int64(held)
                    return .heldBody(count: held)
                case .exhausted(let bodyEnd, let held):
                    index = bytes.count
                    state = .body(matched: held)
                    guard bodyEnd > start else { continue }
                    partLength += Int64(bodyEnd - start)
                    return .body(start..<bodyEnd)
                }
            case .delimiterLine(var dashes, var padding, var sawCR):
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "-") where dashes < 2 && padding == 0 && !sawCR:
                    dashes += 1
                case UInt8(ascii: " "), UInt8(ascii: "\t"):
                    guard dashes != 1, !sawCR else { throw malformed("a delimiter line is broken") }
                    padding += 1
                    guard padding <= Self.maximumPaddingBytes else {
                        throw malformed("a delimiter line has more than \(Self.maximumPaddingBytes) bytes of padding")
                    }
                case UInt8(ascii: "\r") where !sawCR && dashes != 1:
                    sawCR = true
                case UInt8(ascii: "\n") where dashes != 1:
                    if dashes == 2 {
                        state = .epilogue
                    } else {
                        head.removeAll(keepingCapacity: true)
                        state = .head
                    }
                    continue
                default:
                    // "--boundaryX": RFC 2046 forbids the boundary inside a part, so this is no body.
                    throw malformed("a line starting with the boundary is not a delimiter (the boundary appears inside a part)")
                }
                state = .delimiterLine(dashes: dashes, padding: padding, sawCR: sawCR)
            case .head:
                let byte = bytes[index]
                index += 1
                head.append(byte)
                guard head.count <= Self.maximumPartHeadBytes else {
                    throw malformed("part \(partsStarted + 1)'s header block is larger than \(Self.maximumPartHeadBytes) bytes")
                }
                if byte == UInt8(ascii: "\n"), Self.endsHead(head) {
                    return startPart()
                }
            }
        }
        return nil
    }

    /// The response ended: the pieces that end the open part, if one was open (a stream may end a
    /// part with the end of the response instead of a delimiter); none when there is nothing to end.
    /// Throws when the response held no part at all.
    mutating func finish() throws(TransferError) -> [Piece] {
        if pendingPartEnd, let end = endPart() { return [end] }
        switch state {
        case .body(let matched):
            // Bytes held back as the possible start of a delimiter (a CR, a CRLF, "\r\n--b...") are
            // the part's own when no delimiter came: only a whole delimiter is not body (RFC 2046).
            state = .epilogue
            partLength += Int64(matched)
            var pieces: [Piece] = matched > 0 ? [.heldBody(count: matched)] : []
            if let end = endPart() { pieces.append(end) }
            return pieces
        case .preamble:
            throw malformed("the body has no part: no delimiter line \"--\(String(decoding: delimiter.dropFirst(4), as: UTF8.self))\"")
        case .delimiterLine, .head, .epilogue:
            // The last part ended at its delimiter; a part that had not finished its head never began.
            state = .epilogue
            return []
        }
    }

    private mutating func startPart() -> Piece {
        let headers = Self.headers(in: head)
        head.removeAll(keepingCapacity: true)
        var response = TransferResponse(
            url: outer.url, statusCode: outer.statusCode, headers: headers, httpVersion: outer.httpVersion,
            expectedContentLength: headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) })
        response.cacheStatus = outer.cacheStatus
        partsStarted += 1
        currentPart = response
        partLength = 0
        state = .body(matched: 0)
        return .partStarted(response)
    }

    private mutating func endPart() -> Piece? {
        pendingPartEnd = false
        guard let part = currentPart else { return nil }
        currentPart = nil
        return .partEnded(index: partsStarted, response: part, length: partLength)
    }

    private enum Scan {
        /// The delimiter ends before `after`; the body bytes before it are `start..<bodyEnd`.
        case found(bodyEnd: Int, after: Int)
        /// The `held` bytes carried from the last buffer did not begin a delimiter after all; the
        /// buffer is to be scanned again from the same index with nothing held.
        case falseStart(held: Int)
        /// No delimiter; `start..<bodyEnd` are body bytes, and `held` bytes after them (a prefix of
        /// the delimiter) wait for the next buffer.
        case exhausted(bodyEnd: Int, held: Int)
    }

    /// Looks for the delimiter in `bytes` from `start`, `matched` bytes of it already seen before
    /// `start`. The delimiter's only CR is its first byte, so a failed match can only restart at a CR:
    /// the bytes between a CR and the next one are passed over with `memchr`.
    private func scan(_ bytes: UnsafeRawBufferPointer, from start: Int, matched carried: Int) -> Scan {
        var matched = carried
        // Where the candidate delimiter began in this buffer; nil while it began in an earlier one.
        var candidate: Int? = carried == 0 ? start : nil
        var position = start
        let carriageReturn = UInt8(ascii: "\r")
        while position < bytes.count {
            if matched == 0 {
                guard let base = bytes.baseAddress, let found = memchr(base + position, Int32(carriageReturn), bytes.count - position) else {
                    return .exhausted(bodyEnd: bytes.count, held: 0)
                }
                position = base.distance(to: UnsafeRawPointer(found))
                candidate = position
            }
            if bytes[position] == delimiter[matched] {
                matched += 1
                position += 1
                if matched == delimiter.count { return .found(bodyEnd: candidate ?? start, after: position) }
            } else if candidate == nil {
                // What was held from the last buffer is body after all.
                return .falseStart(held: carried)
            } else {
                matched = 0
                // The mismatching byte may itself be a CR that begins the delimiter: look again.
                if bytes[position] != carriageReturn { position += 1 }
            }
        }
        // A candidate that failed on the buffer's last byte holds nothing back.
        return .exhausted(bodyEnd: matched == 0 ? bytes.count : candidate ?? start, held: matched)
    }

    /// Whether `head` (ending in LF) ends with an empty line: an empty block, or a blank line after fields.
    private static func endsHead(_ head: [UInt8]) -> Bool {
        let lf = UInt8(ascii: "\n")
        let cr = UInt8(ascii: "\r")
        let count = head.count
        if count == 1 || (count == 2 && head[0] == cr) { return true }
        if count >= 2 && head[count - 2] == lf { return true }
        return count >= 3 && head[count - 2] == cr && head[count - 3] == lf
    }

    /// The fields of a header block: `Name: value` lines; folded lines continue the last field, and
    /// lines without a colon are skipped, as for a response head (`ResponseHeadParser`).
    private static func headers(in block: [UInt8]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for rawLine in block.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            var line = rawLine[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let first = line.first else { continue }
            let text = String(decoding: line, as: UTF8.self)
            if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                headers.appendToLastValue(text.trimmingCharacters(in: .whitespaces))
                continue
            }
            guard let colon = text.firstIndex(of: ":") else { continue }
            let name = text[..<colon].trimmingCharacters(in: .whitespaces)
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { headers.add(name: name, value: value) }
        }
        return headers
    }

    private func malformed(_ what: String) -> TransferError {
        TransferError(.badServerResponse, "malformed multipart/x-mixed-replace body: \(what)", failingURL: outer.url)
    }
}
