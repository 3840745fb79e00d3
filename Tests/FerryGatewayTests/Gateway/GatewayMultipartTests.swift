import Foundation
import Testing
import URLLoadingTestSupport

/// multipart/x-mixed-replace responses through a real ferryd (LC-10, LG-05): the content is the last
/// complete part, `result.parts` counts the parts, and a `job.part` event announces each one.
@Suite("Gateway multipart responses", .timeLimit(.minutes(5)))
struct GatewayMultipartTests {
    @Test("download and data jobs keep the last part, count the parts, and send a job.part event per part (LC-10, LG-05)")
    func lastPartAndPartEvents() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            // Parts of different sizes would not tell which one was kept; their bodies differ instead.
            let url = fixture.origin.url("/multipart-replace?parts=3&bytes=5000&pause_ms=50&split=1&cookie=1")
            for kind in ["download", "data"] {
                let id = try await client.submit(["kind": kind, "request": ["url": url]])
                let job = try await client.waitForState(id, ["succeeded", "failed"])
                #expect(job["state"] as? String == "succeeded", "\(kind): \(job)")
                let result = try #require(job["result"] as? [String: Any], "\(kind)")
                #expect(result["parts"] as? Int == 3, "\(kind)")
                #expect(result["size"] as? Int == 5000, "\(kind)")
                #expect(result["content_type"] as? String == "text/plain", "\(kind)")

                let content = try await client.get("/v1/jobs/\(id)/content")
                #expect(content.status == 200)
                #expect(Array(content.body) == Array(MultipartReplaceRoute.partBody(3, length: 5000)), "\(kind): the last part")

                // Every stored event of the job, replayed from the start.
                let reading = try await EventStreamClient(client).read("/v1/jobs/\(id)/events", lastEventID: "0")
                #expect(reading.ended)
                let parts = reading.events.filter { $0.event == "job.part" }
                #expect(parts.count == 3, "\(kind): \(reading.events.map(\.event))")
                for (offset, event) in parts.enumerated() {
                    #expect(event.json["id"] as? String == id)
                    #expect(event.json["state"] as? String == "running")
                    let part = try #require(event.json["part"] as? [String: Any])
                    #expect(part["index"] as? Int == offset + 1)
                    #expect(part["size"] as? Int == 5000)
                    let headers = try #require(part["headers"] as? [String: String])
                    #expect(headers["x-part"] == String(offset + 1))
                    #expect(headers["content-type"] == "text/plain")
                    #expect(headers["set-cookie"] == "<redacted>", "a part's Set-Cookie value is never shown or stored")
                }
                // The part events come between the job's start and its end.
                let names = reading.events.map(\.event)
                #expect(names.last == "job.succeeded")
                if let running = names.firstIndex(of: "job.running"), let firstPart = names.firstIndex(of: "job.part") {
                    #expect(running < firstPart)
                }
                // A plain job's result says nothing of parts.
            }
            let plain = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/100")]])
            let plainJob = try await client.waitForState(plain, ["succeeded", "failed"])
            let plainResult = try #require(plainJob["result"] as? [String: Any])
            #expect(plainResult["parts"] == nil)
        }
    }

    @Test("a stream of many parts: each of the first 100 parts gets a job.part event, then at most one a second; result.parts counts them all (LC-10)")
    func partEventsArePaced() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let id = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/multipart-replace?parts=400&bytes=20")]])
            let job = try await client.waitForState(id, ["succeeded", "failed"])
            #expect(job["state"] as? String == "succeeded", "\(job)")
            #expect((job["result"] as? [String: Any])?["parts"] as? Int == 400)
            let indexes = await DatabaseQuery.text(
                "SELECT string_agg(part->>'index', ',' ORDER BY id) FROM job_events WHERE job_id = '\(id)' AND type = 'job.part'",
                fixture.database)
            let recorded = (indexes ?? "").split(separator: ",").compactMap { Int($0) }
            #expect(Array(recorded.prefix(100)) == Array(1...100), "every one of the first 100")
            // 400 parts arrive within moments: far fewer than 300 seconds' worth of later events.
            #expect(recorded.count >= 100 && recorded.count < 400, "\(recorded.count) events")
            #expect(recorded == recorded.sorted())
        }
    }

    @Test("an endpoint subscribed to job.part gets one signed delivery per part, the part in data.part (LC-10)")
    func partWebhooks() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                let endpoint = try await client.post("/v1/webhooks/endpoints", json: ["url": receiver.url("/parts"), "events": ["job.part"]])
                #expect(endpoint.status == 201, "\(endpoint.text)")
                let id = try await client.submit([
                    "kind": "download", "request": ["url": fixture.origin.url("/multipart-replace?parts=2&bytes=300&pause_ms=50")],
                ])
                let received = try await receiver.waitFor { $0.count >= 2 }
                #expect(received.map(\.type) == ["job.part", "job.part"])
                #expect(received.map { $0.job["id"] as? String } == [id, id])
                let parts = received.compactMap { $0.job["part"] as? [String: Any] }
                #expect(parts.compactMap { $0["index"] as? Int }.sorted() == [1, 2])
                #expect(parts.allSatisfy { $0["size"] as? Int == 300 })
                #expect(try await client.waitForState(id, ["succeeded", "failed"])["state"] as? String == "succeeded")
            }
        }
    }

    @Test("a multipart response whose part head is over the limit fails the job with bad_server_response (LC-10)")
    func oversizedPartHeadFails() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let id = try await client.submit([
                "kind": "download", "retry": ["max_attempts": 1],
                "request": ["url": fixture.origin.url("/multipart-replace?parts=3&bytes=10&head_bytes=20000")],
            ])
            let job = try await client.waitForState(id, ["succeeded", "failed"])
            #expect(job["state"] as? String == "failed")
            let error = try #require(job["error"] as? [String: Any])
            #expect(error["code"] as? String == "bad_server_response")
            #expect((error["message"] as? String)?.contains("header block is larger than") == true)
        }
    }
}
