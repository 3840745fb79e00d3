import Foundation
import Testing
@testable import URLLoading

/// The port as a URL's text writes it (RFC 3986 §3.2.3), read where `URL.port` cannot tell "none"
/// from "too large": URLs of the built-in schemes are checked with it before they are fetched (PR-01).
@Suite("Written port: the port a URL's text names")
struct WrittenPortTests {
    @Test("RFC 3986 §3.2: the port follows the host's colon, outside userinfo and IPv6 brackets", arguments: [
        ("http://h:8080/x", "8080"),
        ("http://h/x", nil),
        ("http://h", nil),
        ("http://h:/x", ""),
        ("http://user:secret@h:99/", "99"),
        ("http://user:secret@h/", nil),
        ("http://[::1]:65536/", "65536"),
        ("http://[::1]/", nil),
        ("http://h:1?q=a:b", "1"),
        ("http://h?q=a:b", nil),
        ("http://h#a:b", nil),
        ("http://h/a:b", nil),
        ("mailto:a@h:25", nil),
        ("http://h\u{E9}:81/\u{E9}", "81"),
        ("ftp://h:99999999999999999999/a", "99999999999999999999"),
    ] as [(String, String?)])
    func writtenPort(text: String, port: String?) {
        #expect(WrittenPort.of(text).map(String.init) == port)
    }

    @Test("a combining mark after the colon does not hide the port: delimiters are read as bytes")
    func combiningMarkAfterColon() throws {
        // As Characters, ":" and U+0301 are one grapheme that is not ":", and the port went unseen.
        let port = try #require(WrittenPort.of("http://h:\u{0301}80/"))
        #expect(port == "\u{0301}80")
        #expect(!WrittenPort.isTCPPort(port))
        // A "/" carrying a mark still ends the authority.
        #expect(WrittenPort.of("http://h/\u{0301}:99") == nil)
    }

    @Test("a TCP port is ASCII digits for 1 to 65535", arguments: [
        ("1", true), ("80", true), ("65535", true), ("0", false), ("65536", false), ("", false),
        ("+80", false), ("8o", false), ("99999999999999999999", false), ("\u{0668}\u{0660}", false),
    ])
    func tcpPort(text: String, valid: Bool) {
        #expect(WrittenPort.isTCPPort(Substring(text)) == valid)
    }
}
