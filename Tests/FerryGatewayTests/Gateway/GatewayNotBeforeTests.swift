import Foundation
import Testing
import URLLoadingTestSupport

/// `not_before` (BG-18, the seeds' earliestBeginDate): a job is never started earlier, also after a
/// pause and resume while it waited; a time already past means now; anything but an RFC 3339
/// date-time with an offset, or one too far ahead, is a field error.
@Suite("Gateway not_before", .timeLimit(.minutes(3)))
struct GatewayNotBeforeTests {
    @Test("a job waits until its not_before, also through a pause and resume; a past one runs at once; batches too (BG-18)")
    func waitsUntilItsTime() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let start = Date().addingTimeInterval(4)
            let startText = start.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            let later = try await client.post(
                "/v1/jobs", json: ["kind": "download", "request": ["url": fixture.origin.url("/bytes/1000")], "not_before": startText])
            #expect(later.status == 201, "\(later.text)")
            #expect(later["not_before"] as? String == startText)
            let id = try #require(later["id"] as? String)
            let batch = try await client.post(
                "/v1/jobs/batch", json: ["jobs": [["kind": "download", "request": ["url": fixture.origin.url("/bytes/2000")], "not_before": startText]]])
            let batched = try #require(((batch["jobs"] as? [[String: Any]])?.first?["id"]) as? String)
            let past = try await client.post(
                "/v1/jobs", json: ["kind": "download", "request": ["url": fixture.origin.url("/bytes/3000")], "not_before": "2020-01-01T00:00:00Z"])
            let pastID = try #require(past["id"] as? String)

            // Paused and resumed while it waits: still not before its time.
            #expect(try await client.post("/v1/jobs/\(id)/pause").status == 200)
            #expect(try await client.post("/v1/jobs/\(id)/resume").status == 200)

            let done = try await client.waitForState(pastID, ["succeeded", "failed"])
            #expect(done["state"] as? String == "succeeded")
            #expect(Date() < start, "the past job ran before the later ones' time")
            #expect(try await client.get("/v1/jobs/\(id)")["state"] as? String == "queued")

            for job in [id, batched] {
                let finished = try await client.waitForState(job, ["succeeded", "failed"])
                #expect(finished["state"] as? String == "succeeded", "\(finished)")
                let startedEarly = await DatabaseQuery.text(
                    "SELECT count(*) FROM job_attempts WHERE job_id = '\(job)' AND started_at < '\(startText)'::timestamptz", fixture.database)
                #expect(startedEarly == "0", "no attempt of \(job) started before its not_before")
            }
        }
    }

    @Test("not_before that is not an RFC 3339 date-time with an offset, before 1970 or more than 366 days ahead, is a 400 naming the field")
    func refusesBadTimes() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let farAhead = Date().addingTimeInterval(400 * 86_400).formatted(Date.ISO8601FormatStyle())
            for value in ["tomorrow", "2026-13-01T00:00:00Z", "2026-12-01T08:00:00", "2026-12-01", farAhead, "2026-12-01T08:00:00Zé",
                          "0000-01-01T00:00:00Z", "0001-01-01T00:30:00+01:00", "1969-12-31T23:59:59Z"] {
                let reply = try await client.post(
                    "/v1/jobs", json: ["kind": "download", "request": ["url": fixture.origin.url("/bytes/10")], "not_before": value])
                #expect(reply.status == 400, "\(value): \(reply.text)")
                #expect(((reply["errors"] as? [[String: Any]])?.first?["field"] as? String) == "not_before", "\(value): \(reply.text)")
            }
        }
    }
}
