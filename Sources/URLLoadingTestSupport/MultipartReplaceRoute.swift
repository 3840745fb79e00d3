import Foundation
import NIOCore
import NIOHTTP1

/// `/multipart-replace?parts=N&bytes=M&pause_ms=D&split=0|1&padding=0|1&end=close|delimiter|open&head_bytes=H&boundary=B&quoted=0|1&no_boundary=0|1&cookie=0|1`
///
/// A `multipart/x-mixed-replace` response (RFC 2046 §5.1.1), streamed part after part with D ms
/// between parts (chunked, no Content-Length), for the engine's multipart delivery (LC-10, LG-05):
/// a preamble, then N parts, each after the delimiter line `--B` (with transport padding "  \t" when
/// `padding=1`), with the headers `Content-Type: text/plain`, `X-Part: i`, `Content-Length: M`
/// (`Set-Cookie: part=i` too when `cookie=1`; part 2 also gets an `X-Padding` field of H bytes when
/// `head_bytes=H`) and the body `MultipartReplaceRoute.partBody(i, length: M)`.
///
/// `end`: `close` (the default) ends with the close delimiter `--B--` and an epilogue; `delimiter`
/// with a plain delimiter line and nothing after it; `open` right after the last part's body.
/// `split=1` writes every delimiter in two writes, cut inside the boundary, and every part's head in
/// two writes too, 30 ms apart, so that the client reads them in separate pieces. `quoted=1` quotes
/// the boundary parameter; `no_boundary=1` leaves it out; `etag=1` adds a strong ETag (which would
/// make a plain response resumable). Defaults: N=3, M=100, D=0, B=ferry-frame.
public enum MultipartReplaceRoute {
    /// The body of part `index`: "part <index>\r\n--not-a-delimiter\r\n" repeated and cut to
    /// `length` bytes. Its "\r\n--" lines begin like a delimiter, which a parser must not take for one.
    public static func partBody(_ index: Int, length: Int) -> Data {
        let unit = Array("part \(index)\r\n--not-a-delimiter\r\n".utf8)
        return Data((0..<length).map { unit[$0 % unit.count] })
    }

    @Sendable
    static func serve(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let parts = request.integerQuery("parts", default: 3), parts >= 0,
              let length = request.integerQuery("bytes", default: 100), length >= 0,
              let pause = request.integerQuery("pause_ms", default: 0), pause >= 0,
              let headBytes = request.integerQuery("head_bytes", default: 0), headBytes >= 0
        else {
            try await response.send(.badRequest, text: "bad multipart-replace parameters")
            return
        }
        let boundary = request.query["boundary"] ?? "ferry-frame"
        let split = request.query["split"] == "1"
        let padding = request.query["padding"] == "1" ? "  \t" : ""
        var contentType = "multipart/x-mixed-replace"
        if request.query["no_boundary"] != "1" {
            contentType += request.query["quoted"] == "1" ? "; boundary=\"\(boundary)\"" : "; boundary=\(boundary)"
        }
        var headers: HTTPHeaders = ["content-type": contentType, "cache-control": "no-cache"]
        if request.query["etag"] == "1" { headers.add(name: "etag", value: "\"stream-1\"") }
        try await response.sendHead(.ok, headers: headers)

        func send(_ text: String) async throws { try await response.sendBody(ByteBuffer(string: text)) }
        /// Sends a delimiter line (with the CRLF before it unless it opens the body), cut in two when splitting.
        func delimiter(leadingCRLF: Bool, close: Bool) async throws {
            let line = (leadingCRLF ? "\r\n" : "") + "--" + boundary + (close ? "--" : "") + padding + "\r\n"
            guard split else { return try await send(line) }
            let cut = line.index(line.startIndex, offsetBy: (leadingCRLF ? 2 : 0) + 2 + boundary.count / 2)
            try await send(String(line[..<cut]))
            try await Task.sleep(for: .milliseconds(30))
            try await send(String(line[cut...]))
        }

        try await send("This preamble is not a part.")
        for index in stride(from: 1, through: parts, by: 1) {
            if index > 1 { try await Task.sleep(for: .milliseconds(pause)) }
            try await delimiter(leadingCRLF: true, close: false)
            var head = "Content-Type: text/plain\r\nX-Part: \(index)\r\n"
            if request.query["cookie"] == "1" { head += "Set-Cookie: part=\(index)\r\n" }
            if index == 2, headBytes > 0 { head += "X-Padding: \(String(repeating: "x", count: headBytes))\r\n" }
            head += "Content-Length: \(length)\r\n\r\n"
            if split {
                let cut = head.index(head.startIndex, offsetBy: head.count / 2)
                try await send(String(head[..<cut]))
                try await Task.sleep(for: .milliseconds(30))
                try await send(String(head[cut...]))
            } else {
                try await send(head)
            }
            try await response.sendBody(ByteBuffer(bytes: partBody(index, length: length)))
        }
        switch request.query["end"] ?? "close" {
        case "open": break
        case "delimiter": try await delimiter(leadingCRLF: true, close: false)
        default:
            try await delimiter(leadingCRLF: true, close: true)
            try await send("This epilogue is not a part either.\r\n")
        }
        try await response.sendEnd()
    }
}
