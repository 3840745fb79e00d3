import FerryMetrics
import FerryModel
import FerryStore
import Foundation
import Hummingbird

/// `/v1/sessions`: a tenant's sessions, the seeds' configured sessions that jobs run in.
struct SessionRoutes {
    let sessions: SessionStore
    /// Checks a background session's callback URL.
    let urlPolicy: OutboundURLPolicy
    /// Counts the jobs a `mode=cancel` invalidation cancels at once (running ones are their workers' to count).
    let metrics: GatewayMetrics

    struct SessionView: ResponseEncodable {
        var id: String
        var kind: String
        var identifier: String?
        var configuration: ConfigurationView
        var createdAt: String
        var invalidatedAt: String?
        var invalidationMode: String?
        /// In the answer to `POST /v1/sessions` for a background session: its jobs that have not
        /// ended, which a rejoining client takes up again (BG-08).
        var outstandingJobs: [JobView]?

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
            var discretionary: Bool?
            var notBefore: String?
            var sendsLaunchEvents: Bool?
            var callback: Callback?

            struct Timeouts: Codable {
                var idle: Double?
                var resource: Double?
            }
            struct Callback: Codable { var url: String }
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
                case discretionary, callback
                case notBefore = "not_before"
                case sendsLaunchEvents = "sends_launch_events"
            }
        }

        enum CodingKeys: String, CodingKey {
            case id, kind, identifier, configuration
            case outstandingJobs = "outstanding_jobs"
            case createdAt = "created_at"
            case invalidatedAt = "invalidated_at"
            case invalidationMode = "invalidation_mode"
        }

        init(_ record: SessionStore.Record, outstandingJobs: [JobRecord]? = nil) {
            id = record.id.lowercasedString
            kind = record.kind
            identifier = record.identifier
            self.outstandingJobs = outstandingJobs?.map { JobView($0) }
            let settings = record.settings
            let background = settings.background
            let timeouts = settings.idleTimeout == nil && background == nil
                ? nil : ConfigurationView.Timeouts(idle: settings.idleTimeout, resource: background?.resourceTimeout)
            configuration = ConfigurationView(
                timeouts: timeouts, maxConnectionsPerHost: settings.maxConnectionsPerHost,
                additionalHeaders: JobView.redacted(settings.additionalHeaders),
                tls: settings.tlsMinimum == nil && settings.tlsMaximum == nil ? nil : .init(minimum: settings.tlsMinimum, maximum: settings.tlsMaximum),
                proxy: settings.proxy.map(Self.redactedProxy), cachePolicy: settings.cachePolicy, decisions: settings.decisions,
                cookieAcceptPolicy: settings.cookieAcceptPolicy, discretionary: background?.discretionary, notBefore: background?.notBefore,
                sendsLaunchEvents: background?.sendsLaunchEvents, callback: background?.callbackURL.map { .init(url: $0) })
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
            let (kind, identifier, settings) = try submission.validated(urlPolicy: urlPolicy)
            switch try await sessions.create(kind: kind, identifier: identifier, settings: settings, tenant: tenant) {
            case .created(let record):
                return EditedResponse(
                    status: .created, headers: [.location: "/v1/sessions/\(record.id.lowercasedString)"],
                    response: SessionView(record, outstandingJobs: kind == "background" ? [] : nil))
            case .rejoined(let record):
                let outstanding = try await sessions.outstandingJobs(of: record.id, tenant: tenant)
                return EditedResponse(status: .ok, response: SessionView(record, outstandingJobs: outstanding))
            }
        }
        group.get("/sessions") { _, context in
            let tenant = try context.requireTenant()
            return SessionList(sessions: try await sessions.sessions(tenant: tenant).map { SessionView($0) })
        }
        group.get("/sessions/{id}") { _, context in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            guard let record = try await sessions.session(id, tenant: tenant) else { throw Problem.notFound("session \(id.lowercasedString)") }
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
