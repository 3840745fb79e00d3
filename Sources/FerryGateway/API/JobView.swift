import Foundation
import Hummingbird

/// A job as the API shows it (`GET /v1/jobs/{id}` and everywhere a job is returned).
///
/// Header values that carry credentials (Authorization, Cookie, ...) are shown as `<redacted>`: a job's
/// status is read by dashboards and logs, and secrets are never echoed.
struct JobView: ResponseEncodable {
    var id: String
    var tenant: String?
    var kind: String
    var state: String
    var stopRequested: String?
    var attempt: Int
    var maxAttempts: Int
    var priority: Int
    var session: String?
    var createdAt: String
    var updatedAt: String
    var finishedAt: String?
    var request: RequestView
    var progress: ProgressView
    var response: ResponseView?
    var result: ResultView?
    var error: ErrorView?
    /// What the job waits for the client to decide (waiting_for_decision only).
    var decision: DecisionView?

    struct DecisionView: Encodable {
        var pending: PendingDecision
        var expiresAt: String?

        enum CodingKeys: String, CodingKey { case expiresAt = "expires_at" }

        /// The pending decision's own fields, with when it times out beside them.
        func encode(to encoder: any Encoder) throws {
            try pending.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        }
    }

    struct RequestView: Codable {
        var url: String
        var method: String
        var headers: [String: String]
    }

    struct ProgressView: Codable {
        var bytesDone: Int64
        var bytesExpected: Int64?
        var rate: Int64?
        enum CodingKeys: String, CodingKey {
            case bytesDone = "bytes_done"
            case bytesExpected = "bytes_expected"
            case rate
        }
    }

    struct ResponseView: Codable {
        var status: Int?
        var headers: [String: String]
        var url: String
    }

    struct ResultView: Codable {
        var size: Int64
        var sha256: String
        var contentType: String?
        var cache: String?
        enum CodingKeys: String, CodingKey {
            case size, sha256, cache
            case contentType = "content_type"
        }
    }

    struct ErrorView: Codable {
        var code: String
        var message: String
    }

    enum CodingKeys: String, CodingKey {
        case id, tenant, kind, state
        case stopRequested = "stop_requested"
        case attempt
        case maxAttempts = "max_attempts"
        case priority, session
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case finishedAt = "finished_at"
        case request, progress, response, result, error, decision
    }

    static let sensitiveHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"]

    /// `showTenant`: the admin's views say whose job it is.
    init(_ job: JobRecord, showTenant: Bool = false) {
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
        result = job.result.map { ResultView(size: $0.size, sha256: $0.sha256, contentType: $0.contentType, cache: $0.cache) }
        error = job.errorCode.map { ErrorView(code: $0, message: job.errorMessage ?? "") }
        decision = job.decision.map { DecisionView(pending: $0, expiresAt: job.decisionDeadline.map(Self.timestamp)) }
    }

    static func redacted(_ headers: [JobSpecification.Header]) -> [String: String] {
        var shown: [String: String] = [:]
        for header in headers {
            let value = sensitiveHeaders.contains(header.name.lowercased()) ? "<redacted>" : header.value
            let key = header.name.lowercased()
            shown[key] = shown[key].map { "\($0), \(value)" } ?? value
        }
        return shown
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// `GET /v1/jobs`: a page of jobs and the cursor of the next page (nil on the last).
struct JobPage: ResponseEncodable {
    var jobs: [JobView]
    var nextCursor: String?
    enum CodingKeys: String, CodingKey {
        case jobs
        case nextCursor = "next_cursor"
    }
}

/// The reply to `POST /v1/jobs/batch`: its jobs in the order they were submitted.
struct JobBatchView: ResponseEncodable {
    var jobs: [JobView]
}
