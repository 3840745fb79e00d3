import FerryMetrics
import FerryModel
import FerryStore
import Foundation
import Hummingbird

/// `/v1/sessions`: a tenant's sessions, the seeds' configured sessions that jobs run in.
struct SessionRoutes {
    let sessions: SessionStore
    /// Counts the jobs a `mode=cancel` invalidation cancels at once (running ones are their workers' to count).
    let metrics: GatewayMetrics

    struct SessionView: ResponseEncodable {
        var id: String
        var kind: String
        var configuration: ConfigurationView
        var createdAt: String
        var invalidatedAt: String?
        var invalidationMode: String?

        struct ConfigurationView: Codable {
            var timeouts: Timeouts?
            var maxConnectionsPerHost: Int?
            var additionalHeaders: [String: String]
            var tls: TLS?
            /// Credentials in it are shown as `<redacted>`.
            var proxy: String?
            var cachePolicy: String?
            var decisions: DecisionPolicy?
            var cookieAcceptPolicy: String?

            struct Timeouts: Codable { var idle: Double }
            struct TLS: Codable {
                var minimum: String?
                var maximum: String?
            }

            enum CodingKeys: String, CodingKey {
                case timeouts
                case maxConnectionsPerHost = "max_connections_per_host"
                case additionalHeaders = "additional_headers"
                case tls, proxy, decisions
                case cachePolicy = "cache_policy"
                case cookieAcceptPolicy = "cookie_accept_policy"
            }
        }

        enum CodingKeys: String, CodingKey {
            case id, kind, configuration
            case createdAt = "created_at"
            case invalidatedAt = "invalidated_at"
            case invalidationMode = "invalidation_mode"
        }

        init(_ record: SessionStore.Record) {
            id = record.id.lowercasedString
            kind = record.kind
            let settings = record.settings
            configuration = ConfigurationView(
                timeouts: settings.idleTimeout.map { .init(idle: $0) }, maxConnectionsPerHost: settings.maxConnectionsPerHost,
                additionalHeaders: JobView.redacted(settings.additionalHeaders),
                tls: settings.tlsMinimum == nil && settings.tlsMaximum == nil ? nil : .init(minimum: settings.tlsMinimum, maximum: settings.tlsMaximum),
                proxy: settings.proxy.map(Self.redactedProxy), cachePolicy: settings.cachePolicy, decisions: settings.decisions,
                cookieAcceptPolicy: settings.cookieAcceptPolicy)
            createdAt = JobView.timestamp(record.createdAt)
            invalidatedAt = record.invalidatedAt.map(JobView.timestamp)
            invalidationMode = record.invalidationMode
        }

        static func redactedProxy(_ text: String) -> String {
            guard var components = URLComponents(string: text), components.password != nil else { return text }
            components.password = "<redacted>"
            return components.string ?? "<redacted>"
        }
    }

    struct SessionList: ResponseEncodable {
        var sessions: [SessionView]
    }

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.post("/sessions") { request, context in
            let tenant = try context.requireTenant()
            let (submission, _) = try await JSONBody.decode(SessionSubmission.self, from: request, context: context)
            let (kind, settings) = try submission.validated()
            let record = try await sessions.create(kind: kind, settings: settings, tenant: tenant)
            return EditedResponse(status: .created, response: SessionView(record))
        }
        group.get("/sessions") { _, context in
            let tenant = try context.requireTenant()
            return SessionList(sessions: try await sessions.sessions(tenant: tenant).map(SessionView.init))
        }
        group.get("/sessions/{id}") { _, context in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            guard let record = try await sessions.session(id, tenant: tenant) else { throw Problem.notFound("session \(id)") }
            return SessionView(record)
        }
        group.delete("/sessions/{id}") { request, context in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            let mode = request.uri.queryParameters["mode"].map(String.init) ?? "finish"
            guard mode == "finish" || mode == "cancel" else {
                throw Problem.invalid([.init(field: "mode", message: "must be finish or cancel")])
            }
            let invalidated = try await sessions.invalidate(id, mode: mode, tenant: tenant)
            // Their error code is `cancelled`, as `SessionStore.invalidate` writes it.
            metrics.jobFinished(state: .cancelled, errorCode: "cancelled", count: invalidated.cancelledAtOnce)
            return SessionView(invalidated.record)
        }
    }
}
