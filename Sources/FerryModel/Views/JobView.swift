import Foundation

/// A job as the API shows it (`GET /v1/jobs/{id}` and everywhere a job is returned).
///
/// Header values that carry credentials (Authorization, Cookie, ...) are shown as `<redacted>`: a job's
/// status is read by dashboards and logs, and secrets are never echoed.
package struct JobView: Encodable {
    package var id: String
    package var tenant: String?
    package var kind: String
    package var state: String
    package var stopRequested: String?
    package var attempt: Int
    package var maxAttempts: Int
    package var priority: Int
    package var session: String?
    package var createdAt: String
    package var updatedAt: String
    package var finishedAt: String?
    package var request: RequestView
    package var progress: ProgressView
    package var response: ResponseView?
    package var result: ResultView?
    package var error: ErrorView?
    /// What the job waits for the client to decide (waiting_for_decision only).
    package var decision: DecisionView?
    /// When the job may start at the earliest, when its submission said (BG-18).
    package var notBefore: String?
    /// True when the job runs only on otherwise idle workers (BG-05, from its background session).
    package var discretionary: Bool?
    /// The content size the client expects, counted against the storage quota (BG-19).
    package var expectedBytes: Int64?
    /// Only in a `job.part` event: the part of a multipart/x-mixed-replace response that ended (LC-10).
    package var part: JobPartView?

    package struct DecisionView: Encodable {
        package var pending: PendingDecision
        package var expiresAt: String?

        package enum CodingKeys: String, CodingKey { case expiresAt = "expires_at" }

        /// The pending decision's own fields, with when it times out beside them.
        package func encode(to encoder: any Encoder) throws {
            try pending.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        }

        package init(pending: PendingDecision, expiresAt: String? = nil) {
            self.pending = pending
            self.expiresAt = expiresAt
        }
    }

    package struct RequestView: Codable {
        package var url: String
        package var method: String
        package var headers: [String: String]

        package init(url: String, method: String, headers: [String: String]) {
            self.url = url
            self.method = method
            self.headers = headers
        }
    }

    package struct ProgressView: Codable {
        package var bytesDone: Int64
        package var bytesExpected: Int64?
        package var rate: Int64?
        package enum CodingKeys: String, CodingKey {
            case bytesDone = "bytes_done"
            case bytesExpected = "bytes_expected"
            case rate
        }

        package init(bytesDone: Int64, bytesExpected: Int64? = nil, rate: Int64? = nil) {
            self.bytesDone = bytesDone
            self.bytesExpected = bytesExpected
            self.rate = rate
        }
    }

    package struct ResponseView: Codable {
        package var status: Int?
        package var headers: [String: String]
        package var url: String

        package init(status: Int? = nil, headers: [String: String], url: String) {
            self.status = status
            self.headers = headers
            self.url = url
        }
    }

    package struct ResultView: Codable {
        package var size: Int64
        package var sha256: String
        package var contentType: String?
        package var cache: String?
        /// Present (true) once the content passed its retention and was removed.
        package var contentExpired: Bool?
        /// How many parts a multipart/x-mixed-replace response had (the content is the last); absent
        /// for any other response (LC-10).
        package var parts: Int?
        package enum CodingKeys: String, CodingKey {
            case size, sha256, cache, parts
            case contentType = "content_type"
            case contentExpired = "content_expired"
        }

        package init(size: Int64, sha256: String, contentType: String? = nil, cache: String? = nil) {
            self.size = size
            self.sha256 = sha256
            self.contentType = contentType
            self.cache = cache
        }
    }

    package struct ErrorView: Codable {
        package var code: String
        package var message: String

        package init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    package enum CodingKeys: String, CodingKey {
        case id, tenant, kind, state
        case stopRequested = "stop_requested"
        case attempt
        case maxAttempts = "max_attempts"
        case priority, session
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case finishedAt = "finished_at"
        case request, progress, response, result, error, decision, part
        case notBefore = "not_before"
        case discretionary
        case expectedBytes = "expected_bytes"
    }

    package static let sensitiveHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"]

    /// `showTenant`: the admin's views say whose job it is.
    package init(_ job: JobRecord, showTenant: Bool = false) {
        id = job.id.lowercasedString
        tenant = showTenant ? job.tenantID.lowercasedString : nil
        kind = job.kind.rawValue
        state = job.state.rawValue
        stopRequested = job.stopRequest
        attempt = job.attempt
        maxAttempts = job.maxAttempts
        priority = job.priority
        session = job.sessionID?.lowercasedString
        createdAt = Self.timestamp(job.createdAt)
        updatedAt = Self.timestamp(job.updatedAt)
        finishedAt = job.finishedAt.map(Self.timestamp)
        request = RequestView(url: job.request.url, method: job.request.method, headers: Self.redacted(job.request.headers))
        progress = ProgressView(bytesDone: job.bytesDone, bytesExpected: job.bytesExpected, rate: job.bytesPerSecond)
        response = job.response.map { ResponseView(status: $0.status, headers: Self.redacted($0.headers), url: $0.url) }
        result = job.result.map { stored in
            var view = ResultView(size: stored.size, sha256: stored.sha256, contentType: stored.contentType, cache: stored.cache)
            if stored.expired == true { view.contentExpired = true }
            view.parts = stored.parts
            return view
        }
        error = job.errorCode.map { ErrorView(code: $0, message: job.errorMessage ?? "") }
        decision = job.decision.map { DecisionView(pending: $0, expiresAt: job.decisionDeadline.map(Self.timestamp)) }
        notBefore = job.policies.notBefore
        discretionary = job.policies.discretionary
        expectedBytes = job.policies.expectedBytes
    }

    package static func redacted(_ headers: [JobSpecification.Header]) -> [String: String] {
        var shown: [String: String] = [:]
        for header in headers {
            let value = sensitiveHeaders.contains(header.name.lowercased()) ? "<redacted>" : header.value
            let key = header.name.lowercased()
            shown[key] = shown[key].map { "\($0), \(value)" } ?? value
        }
        return shown
    }

    package static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
