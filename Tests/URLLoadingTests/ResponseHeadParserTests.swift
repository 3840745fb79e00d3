import Testing
@testable import URLLoading

/// How the lines of curl's header callback become a response head: interim heads skipped, optional
/// whitespace around names and values dropped (spaces and tabs only), folded lines joined (LC-05).
@Suite("Response head parser")
struct ResponseHeadParserTests {
    private func parse(_ lines: [String]) -> [ResponseHeadParser.Head] {
        var parser = ResponseHeadParser()
        var heads: [ResponseHeadParser.Head] = []
        for line in lines {
            var bytes = Array(line.utf8)
            if let head = bytes.withUnsafeMutableBytes({ parser.consume(line: UnsafeRawBufferPointer($0)) }) { heads.append(head) }
        }
        return heads
    }

    @Test("fields lose the blanks around them but keep what is inside; a colon in the value stays")
    func fields() {
        let heads = parse([
            "HTTP/1.1 200 OK\r\n", "Content-Type:\t text/plain; charset=utf-8 \t\r\n", "Location: http://example.com:8080/a b\r\n",
            "X-Empty:\r\n", "Spaced-Name \t: value\r\n", "no colon here\r\n", "Content-Length:  42 \r\n", "\r\n",
        ])
        #expect(heads.count == 1)
        let head = heads.first
        #expect(head?.statusCode == 200)
        #expect(head?.httpVersion == "HTTP/1.1")
        #expect(head?.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(head?.headers["Location"] == "http://example.com:8080/a b")
        #expect(head?.headers["X-Empty"] == "")
        #expect(head?.headers["Spaced-Name"] == "value")
        #expect(head?.contentLength == 42)
        #expect(head?.headers.values(for: "no colon here").isEmpty == true)
    }

    @Test("a 100 Continue head is skipped; a folded line joins the field before it; HTTP/2 is named so")
    func interimAndFolded() {
        let heads = parse([
            "HTTP/1.1 100 Continue\r\n", "\r\n",
            "HTTP/2 404\r\n", "x-note: first\r\n", "\t  second part \r\n", "\r\n",
        ])
        #expect(heads.map(\.statusCode) == [404])
        #expect(heads.first?.httpVersion == "HTTP/2")
        #expect(heads.first?.headers["x-note"] == "first second part")
        #expect(heads.first?.contentLength == nil)
    }
}
