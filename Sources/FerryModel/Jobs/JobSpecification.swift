import Foundation

/// What a job does, as stored in `jobs.request` and `jobs.policies` (JSON) and read back by workers.
/// Made from a validated `JobSubmission`; never from unchecked input.
public struct JobSpecification: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case download, upload, data
    }

    public var kind: Kind
    public var request: Request
    public var policies: Policies
    public var priority: Int
    public var maxAttempts: Int
    public var sessionID: UUID?

    /// The outbound request, `jobs.request`.
    public struct Request: Sendable, Equatable, Codable {
        public var url: String
        public var method: String
        /// In the order given; names as given (HTTP compares them case-insensitively).
        public var headers: [Header]
        public var body: Body?

        package init(url: String, method: String, headers: [Header], body: Body? = nil) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
        }
    }

    public struct Header: Sendable, Equatable, Codable {
        public var name: String
        public var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Where an upload's (or a POST's) body comes from.
    public enum Body: Sendable, Equatable, Codable {
        /// Small, inline in the job.
        case inline(Data)
        /// A blob uploaded before with `PUT /v1/blobs`.
        case blob(UUID)
        /// The downloaded content of another succeeded job of the same tenant.
        case jobContent(UUID)

        /// A blob or another job's content: rows that must exist, and be the tenant's.
        public var refersToStoredContent: Bool {
            if case .inline = self { return false }
            return true
        }

        private enum CodingKeys: String, CodingKey { case inline, blob, job }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let data = try container.decodeIfPresent(Data.self, forKey: .inline) {
                self = .inline(data)
            } else if let blob = try container.decodeIfPresent(UUID.self, forKey: .blob) {
                self = .blob(blob)
            } else {
                self = .jobContent(try container.decode(UUID.self, forKey: .job))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .inline(let data): try container.encode(data, forKey: .inline)
            case .blob(let id): try container.encode(id, forKey: .blob)
            case .jobContent(let id): try container.encode(id, forKey: .job)
            }
        }
    }

    /// How the job runs, `jobs.policies`.
    public struct Policies: Sendable, Equatable, Codable {
        /// No byte moving for this long ends the attempt (seconds); nil: the engine's default.
        public var idleTimeout: Double?
        /// The whole attempt may take at most this long (seconds); nil: no limit beyond the engine's.
        public var totalTimeout: Double?
        public var followRedirects: Bool
        public var maxRedirects: Int
        /// Lower-case hex; the download must hash to it.
        public var sha256: String?
        /// Stored now, delivered by the webhooks work.
        public var callbackURL: String?
        /// How the request uses the tenant's cache, as the API names it (`use_protocol`, ...); nil:
        /// the session's, else `use_protocol` (CA-05).
        public var cachePolicy: String?
        /// Which decisions the client makes; unset ones fall back to the job's session's.
        public var decisions: DecisionPolicy?
        /// Ask the origin for a compressed body (`Accept-Encoding`) and store it decoded. Off (nil)
        /// by default: the stored bytes are then the origin's own, as a checksum expects, and a
        /// paused, killed or retried attempt continues where it stopped, which a decoded body cannot.
        public var compressed: Bool?
        /// Days the content is kept after the job succeeded; nil: `FERRY_CONTENT_RETENTION_DAYS`
        /// (`ContentRetention`, which reads it in SQL as `policies->>'retention_days'`).
        public var retentionDays: Int?
        /// False: the job's requests neither send its session's cookies nor store the ones they are
        /// given (CK-02, the request's `httpShouldHandleCookies`); nil: they do.
        public var cookies: Bool?
        /// The job is not started before this time (BG-18, the seeds' earliestBeginDate), as
        /// `JobView.timestamp` writes it; the table reads it where it sets `run_after`
        /// (`JobStateSQL.earliestRun`).
        public var notBefore: String?
        /// The caller's trace, from `POST /v1/jobs`'s `traceparent` (W3C Trace Context): the job's
        /// attempts are spans of it and its webhooks carry it. Not part of any job view.
        public var traceContext: TraceContext?
        /// Runs only on a worker no other waiting job wants, and gives it back when one comes (BG-05,
        /// BG-17): set from its background session. The claim orders by it (`jobs.discretionary`,
        /// a column generated from this key: `migrations/0018`).
        public var discretionary: Bool?
        /// Network errors are retried, past `max_attempts`, until this time (BG-06, ER-13): its
        /// background session's resource timeout after submission. As `JobView.timestamp` writes it.
        public var retryNetworkErrorsUntil: String?
        /// The client's estimate of the content's size (BG-19, countOfBytesClientExpectsToReceive):
        /// counted against the tenant's storage quota from submission until the job ends
        /// (`StorageQuota`, which reads it in SQL as `policies->>'expected_bytes'`).
        public var expectedBytes: Int64?

        package enum CodingKeys: String, CodingKey {
            case idleTimeout = "idle_timeout"
            case totalTimeout = "total_timeout"
            case followRedirects = "follow_redirects"
            case maxRedirects = "max_redirects"
            case sha256
            case callbackURL = "callback_url"
            case cachePolicy = "cache_policy"
            case decisions
            case compressed
            case retentionDays = "retention_days"
            case cookies
            case notBefore = "not_before"
            case traceContext = "trace_context"
            case discretionary
            case retryNetworkErrorsUntil = "retry_network_errors_until"
            case expectedBytes = "expected_bytes"
        }

        package init(idleTimeout: Double? = nil, totalTimeout: Double? = nil, followRedirects: Bool, maxRedirects: Int, sha256: String? = nil, callbackURL: String? = nil, cachePolicy: String? = nil, decisions: DecisionPolicy? = nil, compressed: Bool? = nil, retentionDays: Int? = nil, cookies: Bool? = nil, notBefore: String? = nil, traceContext: TraceContext? = nil, expectedBytes: Int64? = nil) {
            self.idleTimeout = idleTimeout
            self.totalTimeout = totalTimeout
            self.followRedirects = followRedirects
            self.maxRedirects = maxRedirects
            self.sha256 = sha256
            self.callbackURL = callbackURL
            self.cachePolicy = cachePolicy
            self.decisions = decisions
            self.compressed = compressed
            self.retentionDays = retentionDays
            self.cookies = cookies
            self.notBefore = notBefore
            self.traceContext = traceContext
            self.expectedBytes = expectedBytes
        }
    }

    package static func json<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail.
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }

    package static func decode<Value: Decodable>(_ type: Value.Type, json: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    package init(kind: Kind, request: Request, policies: Policies, priority: Int, maxAttempts: Int, sessionID: UUID? = nil) {
        self.kind = kind
        self.request = request
        self.policies = policies
        self.priority = priority
        self.maxAttempts = maxAttempts
        self.sessionID = sessionID
    }
}
