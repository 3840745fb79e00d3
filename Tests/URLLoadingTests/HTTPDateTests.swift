import Foundation
import Testing
@testable import URLLoading

@Suite("HTTP-date: RFC 9110 §5.6.7, strictly")
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT.
    private let expected = Date(timeIntervalSince1970: 784_111_777)
    /// 25 November 2026, for the two-digit years of rfc850-date.
    private let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("RFC 9110 §5.6.7: IMF-fixdate and the two obsolete formats, nothing else (CA-09)")
    func formats() {
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", " Sun, 06 Nov 1994 08:49:37 GMT "] {
            #expect(HTTPDate.parse(text, now: now) == expected, "\(text)")
        }
        for bad in [
            "", "0", "-1", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06-Nov-1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 08:49:37 +0000", "Sun, 06 Nov 1994 08:49 GMT", "06 Nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
            "sun, 06 nov 1994 08:49:37 gmt", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT x", "Sun Nov 6 08:49:37 1994", "Sunday, 06-Nov-94 08:49:37 UTC",
        ] {
            #expect(HTTPDate.parse(bad, now: now) == nil, "\(bad)")
        }
        // A leap second is the last second of its minute; 29 February only in leap years.
        #expect(HTTPDate.parse("Sat, 31 Dec 2016 23:59:60 GMT") == HTTPDate.parse("Sat, 31 Dec 2016 23:59:59 GMT"))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") != nil)
        #expect(HTTPDate.parse("Thu, 29 Feb 1900 00:00:00 GMT") == nil)
    }

    @Test("RFC 9110 §5.6.7: an rfc850 year more than 50 years ahead is the century before (CA-09)")
    func twoDigitYears() {
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == expected)
        let seventies = HTTPDate.parse("Monday, 01-Jan-70 00:00:00 GMT", now: now)
        #expect(seventies == HTTPDate.parse("Tue, 01 Jan 2070 00:00:00 GMT"))
    }

    @Test("RFC 9110 §5.6.7: Ferry sends IMF-fixdate, which reads back to the same second")
    func formatting() {
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        let moment = Date(timeIntervalSince1970: 1_795_000_000.7)
        #expect(HTTPDate.parse(HTTPDate.format(moment)) == Date(timeIntervalSince1970: 1_795_000_000))
    }
}
