import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/jobs/{id}/events`, `GET /v1/sessions/{id}/events` and `GET /v1/events`: a tenant's job events as Server-Sent Events
/// (see `JobEventStream`). Another tenant's job is a 404, like everywhere else; a tenant with
/// `limit.perTenant` streams open gets 429 `too_many_streams`.
struct EventRoutes {
    let store: JobEventStore
    let feed: JobEventFeed
    let limit: EventStreamLimit
    /// Where a session's stream starts, and the acknowledgements of its clients (BG-14).
    let sessions: SessionStore

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.get("/jobs/{id}/events") { request, context -> Response in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            guard try await store.current(job: id, tenant: tenant) != nil else { throw Problem.notFound("job \(id.lowercasedString)") }
            return try response(JobEventStream(store: store, feed: feed, tenant: tenant, job: id, lastEventID: try Self.lastEventID(request)))
        }
        // A session's events (BG-14): its jobs' state events and `session.events_finished`. A client's
        // Last-Event-ID acknowledges every event up to it; without one, the stream replays what came
        // after the last acknowledged event, so what happened while the client was away is not lost.
        group.get("/sessions/{id}/events") { request, context -> Response in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            let lastEventID = try Self.lastEventID(request)
            guard let start = try await sessions.eventStart(of: id, tenant: tenant, acknowledging: lastEventID) else {
                throw Problem.notFound("session \(id.lowercasedString)")
            }
            return try response(JobEventStream(store: store, feed: feed, tenant: tenant, job: nil, session: id, lastEventID: lastEventID ?? start))
        }
        group.get("/events") { request, context -> Response in
            let tenant = try context.requireTenant()
            return try response(JobEventStream(store: store, feed: feed, tenant: tenant, job: nil, lastEventID: try Self.lastEventID(request)))
        }
    }

    /// The stream's response, its place taken now and held by the body until the response is gone.
    private func response(_ stream: JobEventStream) throws -> Response {
        guard let place = limit.take(stream.tenant) else {
            throw Problem(
                .tooManyRequests, code: "too_many_streams",
                "this tenant has \(limit.perTenant) event streams open on this server, the most it may; close one first",
                headers: [.retryAfter: "5"])
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                _ = place  // held by the body, so given back when the response is gone
                try await stream.run(&writer)
            })
    }

    /// The `Last-Event-ID` a reconnecting client sends: an id this API gave out.
    static func lastEventID(_ request: Request) throws -> Int64? {
        guard let text = request.headers[HTTPField.Name("Last-Event-ID")!] else { return nil }
        guard let id = Int64(text), id >= 0 else {
            throw Problem.invalid([.init(field: "Last-Event-ID", message: "must be the id of an event this stream sent")])
        }
        return id
    }
}
