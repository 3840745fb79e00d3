import FerryModel
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `/v1/webhooks`: the tenant's signing secret and its rotation, endpoints subscribed to event types
/// (each with its own secret, shown once), and the delivery log with redelivery; the admin reads
/// every tenant's deliveries under `/v1/admin/webhooks/deliveries`. Another tenant's endpoint or
/// delivery is a 404, like one that does not exist.
struct WebhookRoutes {
    let store: WebhookStore
    let urlPolicy: OutboundURLPolicy

    /// How long the secret before a rotation keeps signing (and so stays valid for receivers).
    static let rotationGrace = Duration.seconds(24 * 3600)
    /// What endpoints may subscribe to: every state event, and throttled progress.
    static let eventTypes: Set<String> = Set(JobState.allCases.map(\.eventType)).union(["job.progress", "job.part", "session.events_finished"])

    struct SecretView: ResponseEncodable {
        var secret: String
        /// After a rotation: until when the previous secret still signs.
        var previousValidUntil: String?
        enum CodingKeys: String, CodingKey {
            case secret
            case previousValidUntil = "previous_valid_until"
        }
    }

    struct NewEndpoint: Decodable {
        var url: String?
        var events: [String]?
    }

    struct EndpointView: ResponseEncodable {
        var id: String
        var url: String
        var events: [String]
        var createdAt: String
        var disabledAt: String?
        var disabledReason: String?
        /// Only in the response that created the endpoint.
        var secret: String?
        enum CodingKeys: String, CodingKey {
            case id, url, events
            case createdAt = "created_at"
            case disabledAt = "disabled_at"
            case disabledReason = "disabled_reason"
            case secret
        }

        init(_ endpoint: WebhookStore.Endpoint) {
            id = endpoint.id.lowercasedString
            url = endpoint.url
            events = endpoint.events
            createdAt = JobView.timestamp(endpoint.createdAt)
            disabledAt = endpoint.disabledAt.map(JobView.timestamp)
            disabledReason = endpoint.disabledReason
            secret = endpoint.secret?.revealed
        }
    }

    struct EndpointList: ResponseEncodable {
        var endpoints: [EndpointView]
    }

    struct DeliveryView: ResponseEncodable {
        var id: String
        var tenant: String?
        var job: String
        /// The `webhook-id` header of every attempt.
        var webhookID: String
        var type: String
        var url: String
        var endpoint: String?
        var status: String
        var nextAttemptAt: String?
        var createdAt: String
        var deliveredAt: String?
        var attempts: [AttemptView]

        struct AttemptView: Encodable {
            var attempt: Int
            var startedAt: String
            var latencyMilliseconds: Int
            var responseStatus: Int?
            var error: String?
            enum CodingKeys: String, CodingKey {
                case attempt
                case startedAt = "started_at"
                case latencyMilliseconds = "latency_ms"
                case responseStatus = "response_status"
                case error
            }
        }

        enum CodingKeys: String, CodingKey {
            case id, tenant, job
            case webhookID = "webhook_id"
            case type, url, endpoint, status
            case nextAttemptAt = "next_attempt_at"
            case createdAt = "created_at"
            case deliveredAt = "delivered_at"
            case attempts
        }

        init(_ delivery: WebhookStore.Delivery, showTenant: Bool) {
            id = delivery.id.lowercasedString
            tenant = showTenant ? delivery.tenantID.lowercasedString : nil
            job = delivery.jobID.lowercasedString
            webhookID = String(delivery.eventID)
            type = delivery.eventType
            url = delivery.url
            endpoint = delivery.endpointID?.lowercasedString
            status = delivery.status
            nextAttemptAt = delivery.nextAttemptAt.map(JobView.timestamp)
            createdAt = JobView.timestamp(delivery.createdAt)
            deliveredAt = delivery.deliveredAt.map(JobView.timestamp)
            attempts = delivery.attempts.map {
                AttemptView(attempt: $0.attempt, startedAt: JobView.timestamp($0.startedAt), latencyMilliseconds: $0.latencyMilliseconds,
                            responseStatus: $0.responseStatus, error: $0.error)
            }
        }
    }

    /// A page of deliveries, and the cursor of the next one (nil on the last).
    struct DeliveryList: ResponseEncodable {
        var deliveries: [DeliveryView]
        var nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case deliveries
            case nextCursor = "next_cursor"
        }
    }

    func addTenantRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.get("/webhooks/secret") { _, context in
            let tenant = try context.requireTenant()
            return SecretView(secret: try await store.secret(tenant: tenant).revealed)
        }
        group.post("/webhooks/secret/rotate") { _, context in
            let tenant = try context.requireTenant()
            let (secret, until) = try await store.rotateSecret(tenant: tenant, grace: Self.rotationGrace)
            return SecretView(secret: secret.revealed, previousValidUntil: JobView.timestamp(until))
        }
        group.post("/webhooks/endpoints") { request, context in
            let tenant = try context.requireTenant()
            let (body, _) = try await JSONBody.decode(NewEndpoint.self, from: request, context: context)
            let (url, events) = try validated(body)
            let endpoint = try await store.createEndpoint(tenant: tenant, url: url, events: events)
            return EditedResponse(
                status: .created, headers: [.location: "/v1/webhooks/endpoints/\(endpoint.id.lowercasedString)"], response: EndpointView(endpoint))
        }
        group.get("/webhooks/endpoints") { _, context in
            let tenant = try context.requireTenant()
            return EndpointList(endpoints: try await store.endpoints(tenant: tenant).map(EndpointView.init))
        }
        group.delete("/webhooks/endpoints/{id}") { _, context in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            guard try await store.deleteEndpoint(id, tenant: tenant) else { throw Problem.notFound("webhook endpoint \(id.lowercasedString)") }
            return HTTPResponse.Status.noContent
        }
        addDeliveryRoutes(to: group, scope: { .tenant(try $0.requireTenant()) }, showTenant: false)
    }

    func addAdminRoutes(to group: RouterGroup<GatewayRequestContext>) {
        addDeliveryRoutes(to: group, scope: { context in
            try context.requireAdmin()
            return .everyTenant
        }, showTenant: true)
    }

    private func addDeliveryRoutes(
        to group: RouterGroup<GatewayRequestContext>, scope: @escaping @Sendable (GatewayRequestContext) throws -> JobStore.Scope, showTenant: Bool
    ) {
        group.get("/webhooks/deliveries") { request, context in
            let scope = try scope(context)
            var errors: [Problem.FieldError] = []
            var job: UUID?
            if let text = request.uri.queryParameters["job"].map(String.init) {
                job = UUID(idText: text)
                if job == nil { errors.append(.init(field: "job", message: "must be a job id")) }
            }
            let page = PageParameters(request, errors: &errors)
            guard errors.isEmpty else { throw Problem.invalid(errors) }
            let read = try await store.deliveries(scope: scope, job: job, limit: page.limit, after: page.cursor)
            return DeliveryList(deliveries: read.deliveries.map { DeliveryView($0, showTenant: showTenant) }, nextCursor: read.next?.token)
        }
        group.post("/webhooks/deliveries/{id}/redeliver") { _, context in
            let scope = try scope(context)
            let id = try TenantRoutes.id(context, "id")
            guard let delivery = try await store.redeliver(id, scope: scope) else { throw Problem.notFound("webhook delivery \(id.lowercasedString)") }
            return EditedResponse(status: .accepted, response: DeliveryView(delivery, showTenant: showTenant))
        }
    }

    /// An http(s) URL the SSRF guard's scheme and host rules accept (addresses are checked at each
    /// connection), and a non-empty list of known event types.
    private func validated(_ body: NewEndpoint) throws -> (String, [String]) {
        var errors: [Problem.FieldError] = []
        var url = ""
        if let message = SubmittedURL.problem(body.url ?? "", policy: urlPolicy, webOnly: true) {
            errors.append(.init(field: "url", message: message))
        } else {
            url = body.url ?? ""
        }
        let events = body.events ?? []
        if events.isEmpty || events.contains(where: { !Self.eventTypes.contains($0) }) {
            errors.append(.init(field: "events", message: "must list event types among \(Self.eventTypes.sorted().joined(separator: ", "))"))
        }
        guard errors.isEmpty else { throw Problem.invalid(errors) }
        return (url, Array(Set(events)).sorted())
    }
}
