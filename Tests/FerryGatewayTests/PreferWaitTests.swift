@testable import FerryAPI
import FerryModel
import Foundation
import Testing

/// Reading `Prefer: wait` (RFC 7240 §2, §4.3) by bytes: names case-insensitive, blanks around `=`,
/// quoted values, parameters, several fields; `respond-async` wins; anything unreadable is ignored.
@Suite("Prefer: wait")
struct PreferWaitTests {
    @Test("waits read, cut to the maximum, or ignored (RFC 7240 §2, §4.1, §4.3)")
    func parsing() {
        let cases: [([String], Int?)] = [
            (["wait=10"], 10),
            (["WAIT = 7"], 7),
            (["wait=\"5\""], 5),
            (["handling=lenient, wait=3; foo=bar"], 3),
            (["handling=strict", "wait=4"], 4),
            (["wait=0"], 0),
            (["wait=600"], PreferWait.maximumSeconds),
            (["wait=99999999999999999999999999"], PreferWait.maximumSeconds),
            (["wait=2", "wait=9"], 2),
            (["respond-async, wait=10"], nil),
            (["wait=10", "Respond-Async"], nil),
            (["wait=-1"], nil),
            (["wait=1.5"], nil),
            (["wait="], nil),
            (["wait"], nil),
            (["wait=é"], nil),
            ([""], nil),
            ([], nil),
        ]
        for (fields, expected) in cases {
            #expect(PreferWait(fields: fields)?.seconds == expected, "Prefer: \(fields)")
        }
    }
}

/// `not_before` keeps the millisecond it names (never an earlier one) whatever its binary fraction.
@Suite("not_before times")
struct EarliestStartTests {
    @Test("each millisecond of a second is written back as itself; sub-millisecond times round up (BG-18)")
    func millisecondsSurvive() throws {
        let now = try Date("2026-11-25T18:00:00Z", strategy: .iso8601)
        for millisecond in 0..<1000 {
            let text = "2026-11-25T18:06:16.\(String(format: "%03d", millisecond))Z"
            let parsed = try #require(EarliestStart.parse(text, now: now))
            #expect(JobView.timestamp(parsed) == text)
        }
        let sub = try #require(EarliestStart.parse("2026-11-25T18:06:16.8004Z", now: now))
        #expect(JobView.timestamp(sub) == "2026-11-25T18:06:16.801Z")
    }
}
