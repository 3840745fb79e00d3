import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/jobs/{id}/events` and `GET /v1/events`: a tenant's job events as Server-Sent Events
/// (see `JobEventStream`). Another tenant's job is a 404, like everywhere else.
struct EventRoutes {
    let store: JobEventStore
    let feed: JobEventFeed

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.get("/jobs/{id}/events") { request, context -> Response in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            guard try await store.current(job: id, tenant: tenant) != nil else { throw Problem.notFound("job \(id)") }
            return response(JobEventStream(store: store, feed: feed, tenant: tenant, job: id, lastEventID: try Self.lastEventID(request)))
        }
        group.get("/events") { request, context -> Response in
            let tenant = try context.requireTenant()
            return response(JobEventStream(store: store, feed: feed, tenant: tenant, job: nil, lastEventID: try Self.lastEventID(request)))
        }
    }

    private func response(_ stream: JobEventStream) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in try await stream.run(&writer) })
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
