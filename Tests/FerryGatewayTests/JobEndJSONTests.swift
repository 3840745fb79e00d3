import FerryModel
@testable import FerryStore
import Foundation
import Logging
import PostgresNIO
import Testing

/// The end of an attempt is written as JSON built by hand (`JSONText`, `FinishJobsStatement`, bench
/// P3). What it writes must read back as what `Codable` reads: every member, every string as it was.
@Suite("Job end JSON", .timeLimit(.minutes(3)))
struct JobEndJSONTests {
    let logger = Logger(label: "ferry.tests.job-end-json")

    /// Strings that need escaping, and some that must be left alone.
    static let awkwardStrings: [String] = [
        "", "plain", "quote \" backslash \\ slash /", "line\nfeed\rreturn\ttab", "\u{7F} delete stays",
        String(decoding: (1...0x1F).map { UInt8($0) }, as: UTF8.self), "é ü ß", "漢字", "emoji 😀👍🏽", "\\u0041 is text",
    ]

    static let fullResponse = JobRecord.StoredResponse(
        status: 206,
        headers: awkwardStrings.enumerated().map { JobSpecification.Header(name: "X-Header-\($0.offset)", value: $0.element) },
        url: "http://example.test/a?b=\"c\"&d=\\e")

    static let fullResult = JobRecord.StoredResult(
        file: "content/tenant/job \"1\"\\file", size: Int64.max, sha256: String(repeating: "ab", count: 32),
        contentType: "text/plain; charset=\"utf-8\"", cache: "revalidated", expired: true, parts: 3)

    @Test("strings, integers and booleans read back as written; commas and nesting are well formed")
    func valuesRoundTrip() throws {
        var json = JSONText()
        json.object { json in
            json.key("strings")
            json.array(Self.awkwardStrings) { json, value in json.string(value) }
            json.member("smallest", Int64.min)
            json.member("largest", Int64.max)
            json.member("yes", true)
            json.member("no", false)
            json.member("absent", String?.none)
            json.key("empty")
            json.array([Int]()) { json, value in json.integer(value) }
            json.key("nested")
            json.object { json in json.member("n", 1) }
        }
        struct Shape: Decodable, Equatable {
            var strings: [String]
            var smallest: Int64
            var largest: Int64
            var yes: Bool
            var no: Bool
            var absent: String?
            var empty: [Int]
            var nested: [String: Int]
        }
        let read = try JSONDecoder().decode(Shape.self, from: Data(json.bytes))
        #expect(read == Shape(
            strings: Self.awkwardStrings, smallest: .min, largest: .max, yes: true, no: false, absent: nil, empty: [], nested: ["n": 1]))
        #expect(!json.text.contains("absent"), "a nil member is left out, as encodeIfPresent does")
    }

    @Test("a stored response and result written by hand decode to themselves, with every member set")
    func storedValuesRoundTrip() throws {
        // A member added to either type without a value here would go unchecked.
        for fixture in [Mirror(reflecting: Self.fullResponse), Mirror(reflecting: Self.fullResult)] {
            for child in fixture.children {
                let value = Mirror(reflecting: child.value)
                #expect(value.displayStyle != .optional || !value.children.isEmpty, "\(child.label ?? "?") is set in the fixture")
            }
        }
        var response = JSONText()
        Self.fullResponse.write(into: &response)
        #expect(try JSONDecoder().decode(JobRecord.StoredResponse.self, from: Data(response.bytes)) == Self.fullResponse)
        var result = JSONText()
        Self.fullResult.write(into: &result)
        #expect(try JSONDecoder().decode(JobRecord.StoredResult.self, from: Data(result.bytes)) == Self.fullResult)

        // The members Codable writes, no more and no fewer.
        for (byHand, byCodable) in [
            (response.bytes, try JSONEncoder().encode(Self.fullResponse)), (result.bytes, try JSONEncoder().encode(Self.fullResult)),
        ] {
            let handKeys = try #require(try JSONSerialization.jsonObject(with: Data(byHand)) as? [String: Any]).keys.sorted()
            let codableKeys = try #require(try JSONSerialization.jsonObject(with: byCodable) as? [String: Any]).keys.sorted()
            #expect(handKeys == codableKeys)
        }
    }

    @Test("ends with awkward text are stored by PostgreSQL as they were given")
    func endsThroughTheDatabase() async throws {
        try await QueueTestDatabase.with(jobs: 2, logger: logger) { queue, client, _, _, _ in
            let claims = try await queue.claim(owner: "worker", limit: 2, leaseSeconds: 60)
            #expect(claims.count == 2)
            let succeeded = claims[0].job.id
            let failed = claims[1].job.id
            // NUL is the one character jsonb cannot hold; the rest of the control characters can.
            let message = Self.awkwardStrings.joined(separator: "|")
            let success = JobQueue.Completion(
                .succeed, attemptOutcome: "succeeded", progress: .init(bytesDone: 10, bytesExpected: 10, bytesPerSecond: 5),
                response: Self.fullResponse, result: Self.fullResult)
            let failure = JobQueue.Completion(
                .fail, attemptOutcome: "failed", progress: .init(bytesDone: 0, bytesExpected: nil, bytesPerSecond: nil),
                errorCode: "http_500", errorMessage: message, httpStatus: 500)
            async let first = queue.finish(job: succeeded, attempt: 1, owner: "worker", success)
            async let second = queue.finish(job: failed, attempt: 1, owner: "worker", failure)
            #expect(try await [first, second] == [true, true])

            var rows: [UUID: (String, String?, String?, String?, Int64?)] = [:]
            let query: PostgresQuery = "SELECT id, state, response::text, result::text, error_message, bytes_per_second FROM jobs"
            for try await (id, state, response, result, error, rate) in try await client.query(query, logger: logger)
                .decode((UUID, String, String?, String?, String?, Int64?).self) {
                rows[id] = (state, response, result, error, rate)
            }
            let stored = try #require(rows[succeeded])
            #expect(stored.0 == "succeeded")
            #expect(try JSONDecoder().decode(JobRecord.StoredResponse.self, from: Data(try #require(stored.1).utf8)) == Self.fullResponse)
            #expect(try JSONDecoder().decode(JobRecord.StoredResult.self, from: Data(try #require(stored.2).utf8)) == Self.fullResult)
            #expect(stored.4 == 5)
            let stopped = try #require(rows[failed])
            #expect(stopped.0 == "failed")
            #expect(stopped.1 == nil && stopped.2 == nil)
            #expect(stopped.3 == message)
            #expect(stopped.4 == nil)
        }
    }
}
