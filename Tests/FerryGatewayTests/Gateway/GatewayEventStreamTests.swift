import Foundation
import Testing
import URLLoading

/// Server-Sent Events through a real ferryd: a job's events in order up to its final
/// state, the tenant-wide stream, Last-Event-ID resumption, events from one ferryd on another's
/// stream, and 404s for other tenants' jobs.
@Suite("Gateway event streams", .timeLimit(.minutes(5)))
struct GatewayEventStreamTests {
    static let finalStates: Set<String> = ["job.succeeded", "job.failed", "job.cancelled"]

    @Test("a job's stream starts with its current state, carries progress, and ends after job.succeeded, in order")
    func oneJobInOrder() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            // About 2 s of transfer: several progress beats.
            let id = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(3 << 20)?pace_ms=50")]])
            let reading = try await EventStreamClient(client).read("/v1/jobs/\(id)/events")
            #expect(reading.status == 200)
            #expect(reading.headers["Content-Type"] == "text/event-stream")
            #expect(reading.headers["Cache-Control"] == "no-store")
            #expect(reading.ended, "the server closes the stream after the final state")

            let states = reading.events.filter(\.isState)
            let first = try #require(states.first)
            #expect(["job.queued", "job.running"].contains(first.event))
            #expect(first.json["id"] as? String == id)
            #expect(states.last?.event == "job.succeeded")
            #expect(reading.events.last?.event == "job.succeeded")
            #expect(states.map(\.event).suffix(2) == ["job.running", "job.succeeded"])
            let ids = states.compactMap { $0.id.flatMap(Int64.init) }
            #expect(ids.count == states.count, "every event has an id")
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "state events in order: \(ids)")
            for event in states { #expect("job.\(event.json["state"] as? String ?? "")" == event.event) }

            // The final event's data is the job exactly as GET /v1/jobs/{id} shows it.
            let now = try await client.get("/v1/jobs/\(id)")
            #expect(states.last?.data == now.text)

            let progress = reading.events.filter { $0.event == "job.progress" }
            #expect(!progress.isEmpty, "progress while it ran")
            for event in progress {
                #expect(event.id != nil)
                #expect(event.json["id"] as? String == id)
                #expect(event.json["bytes_done"] is Int)
                #expect(event.json["rate"] is NSNumber)
                #expect(event.json.keys.contains("eta_seconds") && event.json.keys.contains("bytes_expected"))
            }
            let done = progress.compactMap { $0.json["bytes_done"] as? Int }
            #expect(done == done.sorted(), "progress only grows: \(done)")

            // Connecting to a finished job: its final state, then the end.
            let late = try await EventStreamClient(client).read("/v1/jobs/\(id)/events")
            #expect(late.events.map(\.event) == ["job.succeeded"])
            #expect(late.ended)
        }
    }

    @Test("GET /v1/events carries every job of the tenant; Last-Event-ID replays exactly the state events after it")
    func tenantStreamAndResumption() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let (_, other) = try await fixture.tenant()
            let streamClient = EventStreamClient(client)
            let submitted = Task {
                // Usually after the stream connected, so the events come live; on a slow machine the
                // stream's replay from Last-Event-ID 0 (the tenant is new) still has them all.
                try await Task.sleep(for: .milliseconds(500))
                let a = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/1000")]])
                let b = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/2000")]])
                _ = try await other.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/10")]])
                return [a, b]
            }
            let reading = try await streamClient.read("/v1/events", lastEventID: "0") { events in
                events.filter { $0.event == "job.succeeded" }.count >= 2
            }
            let jobs = try await submitted.value
            let states = reading.events.filter(\.isState)
            #expect(Set(states.compactMap { $0.json["id"] as? String }) == Set(jobs), "only this tenant's jobs")
            for job in jobs {
                let sequence = states.filter { $0.json["id"] as? String == job }.map(\.event)
                #expect(sequence == ["job.queued", "job.running", "job.succeeded"], "\(job): \(sequence)")
            }

            let resumeFrom = try #require(states.first?.id)
            let rest = states.dropFirst().compactMap(\.id)
            let resumed = try await streamClient.read("/v1/events", lastEventID: resumeFrom) { $0.filter(\.isState).count >= rest.count }
            // Live, two jobs' events may come out of id order (the later id committed first); the
            // replay is in id order. Either way: the same events.
            #expect(resumed.events.filter(\.isState).compactMap(\.id) == rest.sorted { Int($0) ?? 0 < Int($1) ?? 0 })

            // The single-job stream resumes too, and ends at the final state.
            let job = jobs[0]
            let jobStates = states.filter { $0.json["id"] as? String == job }
            let fromFirst = try await streamClient.read("/v1/jobs/\(job)/events", lastEventID: jobStates[0].id)
            #expect(fromFirst.events.map(\.event) == ["job.running", "job.succeeded"])
            #expect(fromFirst.ended)
            let invalid = try await streamClient.read("/v1/events", lastEventID: "not-an-id")
            #expect(invalid.status == 400)
        }
    }

    @Test("an event written by one ferryd reaches a stream served by another ferryd on the same database")
    func eventsCrossProcesses() async throws {
        try await GatewayFixture.with { fixture in
            let second = try await fixture.startAnother(name: "ferryd-2")
            do {
                let (_, client) = try await fixture.tenant()
                let onSecond = EventStreamClient(client.with(baseURL: second.baseURL))
                let submitted = Task {
                    try await Task.sleep(for: .milliseconds(500))
                    // Submitted through the first ferryd: its job.queued is written by that process.
                    return try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/1000")]])
                }
                // Last-Event-ID 0 (a new tenant: everything) in case the submit wins the race with the connection.
                let reading = try await onSecond.read("/v1/events", lastEventID: "0") { events in events.contains { $0.event == "job.succeeded" } }
                let id = try await submitted.value
                let events = reading.events.filter { $0.json["id"] as? String == id }.map(\.event)
                #expect(events.first == "job.queued")
                #expect(events.last == "job.succeeded")
                _ = try await second.terminate()
            } catch {
                print("second ferryd log:\n\(second.log)")
                _ = try? await second.terminate()
                throw error
            }
        }
    }

    @Test("another tenant's job stream is a 404; admins use no tenant stream (403)")
    func isolation() async throws {
        try await GatewayFixture.with { fixture in
            let (_, client) = try await fixture.tenant()
            let (_, other) = try await fixture.tenant()
            let id = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/10")]])
            #expect(try await other.get("/v1/jobs/\(id)/events").status == 404)
            #expect(try await other.get("/v1/jobs/\(UUID().uuidString.lowercased())/events").status == 404)
            #expect(try await fixture.admin.get("/v1/events").status == 403)
        }
    }

    /// Opens a stream and leaves it open: its body and status.
    private static func open(_ client: GatewayClient, _ path: String = "/v1/events") async throws -> (body: ResponseBody, status: Int) {
        let request = TransferRequest(url: URL(string: client.baseURL + path)!, headers: ["Authorization": "Bearer \(client.key ?? "")"])
        let (body, response) = try await client.session.bytes(for: request)
        return (body, response.statusCode ?? 0)
    }

    @Test("a tenant holds at most FERRY_MAX_EVENT_STREAMS_PER_TENANT streams: one more is a 429 too_many_streams; other tenants are not counted; a closed stream's place comes back")
    func streamsPerTenantAreCapped() async throws {
        try await GatewayFixture.with(options: FerrydServer.Options(maxEventStreamsPerTenant: 2)) { fixture in
            let (_, alice) = try await fixture.tenant()
            let (_, bob) = try await fixture.tenant()
            let first = try await Self.open(alice)
            let second = try await Self.open(alice, "/v1/events")
            defer { second.body.task.cancel() }
            #expect(first.status == 200 && second.status == 200)
            let refused = try await alice.get("/v1/events")
            #expect(refused.status == 429)
            #expect(refused.code == "too_many_streams", "\(refused.text)")
            #expect(refused.headers["Retry-After"] != nil)
            let bobs = try await Self.open(bob)
            defer { bobs.body.task.cancel() }
            #expect(bobs.status == 200, "another tenant's streams are counted apart")

            // ferryd finds that a stream's client went away at its next write (a keep-alive within
            // 15 s), and gives its place back then.
            first.body.task.cancel()
            let deadline = ContinuousClock.now + .seconds(60)
            var reopened: (body: ResponseBody, status: Int)?
            while ContinuousClock.now < deadline {
                let attempt = try await Self.open(alice)
                if attempt.status == 200 {
                    reopened = attempt
                    break
                }
                attempt.body.task.cancel()
                try await Task.sleep(for: .seconds(1))
            }
            defer { reopened?.body.task.cancel() }
            #expect(reopened?.status == 200, "the closed stream's place came back")
        }
    }
}
