import Foundation
import HTTPTypes
import Testing

/// `GET /v1/jobs/{id}/events` and `GET /v1/events` (Server-Sent Events, LC-02: state reported as it
/// changes). A live stream never ends, so only what ends is read here: a finished job's stream (its
/// final state, then the end), its replay after a Last-Event-ID, and the refusals. The live streams
/// are `GatewayEventStreamTests`.
@Suite("Routes: events", .timeLimit(.minutes(2)))
struct EventRouteTests {
    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    /// The SSE frames of a stream that ended: each frame's `id`, `event` and decoded `data`.
    static func frames(_ reply: GatewayClient.Reply) -> [(id: Int, event: String, data: [String: Any])] {
        reply.text.components(separatedBy: "\n\n").compactMap { frame in
            var id: Int?, event: String?, data: [String: Any]?
            for line in frame.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") {
                    data = (try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8))) as? [String: Any]
                }
            }
            guard let id, let event, let data else { return nil }
            return (id, event, data)
        }
    }

    @Test func finishedJobsStreamSendsItsFinalStateAndEnds() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let id = try await app.submit(tenant.key)
            #expect(try await app.send(.post, "/v1/jobs/\(id)/cancel", key: tenant.key).status == 200)
            let stream = try await app.send(.get, "/v1/jobs/\(id)/events", key: tenant.key)
            #expect(stream.status == 200)
            #expect(stream.headers["content-type"] == "text/event-stream")
            #expect(stream.headers["cache-control"] == "no-store")
            let frames = Self.frames(stream)
            #expect(frames.map(\.event) == ["job.cancelled"], "\(stream.text)")
            #expect(frames.first?.data["id"] as? String == id)
            #expect(frames.first?.data["state"] as? String == "cancelled")

            // Resuming from the start replays every stored state, oldest first, and ends at the final one.
            let replay = try await app.send(.get, "/v1/jobs/\(id)/events", key: tenant.key, headers: [Self.lastEventID: "0"])
            #expect(replay.status == 200)
            let replayed = Self.frames(replay)
            #expect(replayed.map(\.event) == ["job.queued", "job.cancelled"], "\(replay.text)")
            #expect(replayed.map(\.id) == replayed.map(\.id).sorted())
            #expect(replayed.last?.id == frames.first?.id, "the final event has the same id in both")
            // Resuming after the final event sends nothing more, and ends.
            let caughtUp = try await app.send(
                .get, "/v1/jobs/\(id)/events", key: tenant.key, headers: [Self.lastEventID: String(try #require(frames.first?.id))])
            #expect(caughtUp.status == 200)
            #expect(Self.frames(caughtUp).isEmpty, "\(caughtUp.text)")
        }
    }

    @Test func streamsRefuseUnknownAndForeignJobsBadLastEventIDsAndWrongKeys() async throws {
        try await RouteFixture.with { app in
            let (alice, bob) = try await app.twoTenants()
            let id = try await app.submit(alice.key)
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(id)/events", key: bob.key), 404, "not_found")
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(UUID().uuidString.lowercased())/events", key: alice.key), 404, "not_found")
            app.expectProblem(
                try await app.send(.get, "/v1/jobs/\(id)/events", key: alice.key, headers: [Self.lastEventID: "yesterday"]), 400, "invalid_request",
                fields: ["Last-Event-ID"])
            app.expectProblem(
                try await app.send(.get, "/v1/events", key: alice.key, headers: [Self.lastEventID: "-1"]), 400, "invalid_request",
                fields: ["Last-Event-ID"])
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(id)/events", key: app.adminKey), 403, "tenant_key_required")
            app.expectProblem(try await app.send(.get, "/v1/events", key: app.adminKey), 403, "tenant_key_required")
            app.expectProblem(try await app.send(.get, "/v1/events", key: nil), 401, "unauthenticated")
            app.expectProblem(try await app.send(.get, "/v1/jobs/\(id)/events", key: nil), 401, "unauthenticated")
        }
    }
}
