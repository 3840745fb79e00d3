import FerryModel
import FerryStore
import Foundation
import Synchronization
import Testing

/// The decodes a claim, batch or page shares between its rows: each distinct text (and context) once.
@Suite("Repeated JSON texts")
struct RepeatedJSONTextsTests {
    @Test("a text is decoded once per type and context; a failed decode is not remembered")
    func decodesEachTextOnce() throws {
        let texts = RepeatedJSONTexts()
        let calls = Mutex(0)
        func policies(_ text: String, context: String = "") throws -> JobSpecification.Policies {
            try texts.value(JobSpecification.Policies.self, json: text, context: context) {
                calls.withLock { $0 += 1 }
                return try JobSpecification.decode(JobSpecification.Policies.self, json: $0)
            }
        }
        let text = #"{"follow_redirects":true,"max_redirects":5}"#
        let first = try policies(text)
        #expect(try policies(text) == first)
        #expect(calls.withLock { $0 } == 1)
        #expect(try policies(text, context: "another session").maxRedirects == 5)
        #expect(calls.withLock { $0 } == 2, "another context is decoded on its own")
        #expect(try policies(#"{"follow_redirects":false,"max_redirects":0}"#).followRedirects == false)
        #expect(calls.withLock { $0 } == 3)

        #expect(throws: (any Error).self) { try policies("{") }
        #expect(throws: (any Error).self) { try policies("{") }
        #expect(calls.withLock { $0 } == 5, "a text that does not decode is tried again")
        // The same text as another type is that type's own decode.
        #expect(try texts.value([String: StoredDecisionAnswer].self, json: "{}").isEmpty)
    }
}
