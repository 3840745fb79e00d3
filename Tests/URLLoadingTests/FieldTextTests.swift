import Foundation
import Testing
@testable import URLLoading

/// The byte-level helpers that read header fields on the loop thread (RFC 9110 §5.1, §5.6.3).
@Suite("Field text: OWS trimming and ASCII case")
struct FieldTextTests {
    @Test("RFC 9110 §5.6.3: only SP and HTAB are optional whitespace around a field value")
    func trimming() {
        #expect(" \t text/html \t ".trimmingFieldWhitespace == "text/html")
        #expect("a b".trimmingFieldWhitespace == "a b")
        #expect(" \t ".trimmingFieldWhitespace == "")
        #expect("".trimmingFieldWhitespace == "")
        // Other space is part of the value, as RFC 9110 reads it.
        #expect("\u{00A0}x\r\n".trimmingFieldWhitespace == "\u{00A0}x\r\n")
        let value = "; boundary= \"b\" "
        #expect(value.split(separator: "=")[1].trimmingFieldWhitespace == "\"b\"")
    }

    @Test("RFC 9110 §5.1: field names and tokens compare without ASCII case, and nothing else is folded")
    func asciiCase() {
        #expect("Content-Type".equalsIgnoringASCIICase("content-TYPE"))
        #expect(!"Content-Type".equalsIgnoringASCIICase("Content-Typ"))
        #expect(!"ETag".equalsIgnoringASCIICase("ETag "))
        #expect(!"stra\u{DF}e".equalsIgnoringASCIICase("STRASSE"))
        #expect("\u{C9}tag".equalsIgnoringASCIICase("\u{C9}TAG") && !"\u{C9}tag".equalsIgnoringASCIICase("\u{E9}tag"))
        #expect("Multipart/X-Mixed-Replace".lowercasedASCII == "multipart/x-mixed-replace")
        #expect("\u{C9}T\u{C9}".lowercasedASCII == "\u{C9}t\u{C9}")
        var headers = HTTPHeaders()
        headers.add(name: "content-LENGTH", value: "5")
        #expect(headers["Content-Length"] == "5" && headers["Content-Lengt"] == nil && !headers.contains("Content-Lengthx"))
    }

    @Test("LC-18: a response's media type is lower case without parameters or whitespace")
    func mimeType() throws {
        let url = try #require(URL(string: "http://127.0.0.1/"))
        let response = { (type: String) in TransferResponse(url: url, statusCode: 200, headers: ["Content-Type": type]).mimeType }
        #expect(response(" Text/HTML ; charset=utf-8") == "text/html")
        #expect(response("\tapplication/JSON") == "application/json")
        #expect(response(" ; charset=utf-8") == nil)
    }
}
