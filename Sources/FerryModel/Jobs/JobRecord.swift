import Foundation

/// A job as stored: one row of `jobs` (the store reads it with `JobRecord.columns`).
public struct JobRecord: Sendable, Equatable {
    public var id: UUID
    public var tenantID: UUID
    public var sessionID: UUID?
    public var kind: JobSpecification.Kind
    public var state: JobState
    public var priority: Int
    public var request: JobSpecification.Request
    public var policies: JobSpecification.Policies
    public var attempt: Int
    public var maxAttempts: Int
    public var bytesDone: Int64
    public var bytesExpected: Int64?
    public var bytesPerSecond: Int64?
    public var response: StoredResponse?
    public var result: StoredResult?
    public var errorCode: String?
    public var errorMessage: String?
    public var resumeData: String?
    public var stopRequest: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var finishedAt: Date?
    /// `created_at` in whole microseconds since 1970, exact, for page cursors.
    public var createdMicros: Int64
    /// What the job waits for the client to decide (waiting_for_decision only), and until when.
    public var decision: PendingDecision?
    public var decisionDeadline: Date?

    package init(
        id: UUID, tenantID: UUID, sessionID: UUID?, kind: JobSpecification.Kind, state: JobState, priority: Int, request: JobSpecification.Request, policies: JobSpecification.Policies, attempt: Int, maxAttempts: Int, bytesDone: Int64, bytesExpected: Int64?, bytesPerSecond: Int64?, response: StoredResponse?, result: StoredResult?, errorCode: String?, errorMessage: String?, resumeData: String?, stopRequest: String?, createdAt: Date, updatedAt: Date, finishedAt: Date?, createdMicros: Int64, decision: PendingDecision?, decisionDeadline: Date?
    ) {
        self.id = id
        self.tenantID = tenantID
        self.sessionID = sessionID
        self.kind = kind
        self.state = state
        self.priority = priority
        self.request = request
        self.policies = policies
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.bytesDone = bytesDone
        self.bytesExpected = bytesExpected
        self.bytesPerSecond = bytesPerSecond
        self.response = response
        self.result = result
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.resumeData = resumeData
        self.stopRequest = stopRequest
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
        self.createdMicros = createdMicros
        self.decision = decision
        self.decisionDeadline = decisionDeadline
    }

    /// The final response of the last attempt: `jobs.response`.
    public struct StoredResponse: Sendable, Equatable, Codable {
        public var status: Int?
        public var headers: [JobSpecification.Header]
        public var url: String

        package init(status: Int? = nil, headers: [JobSpecification.Header], url: String) {
            self.status = status
            self.headers = headers
            self.url = url
        }
    }

    /// What a succeeded download produced: `jobs.result`. `file` is relative to the data directory.
    public struct StoredResult: Sendable, Equatable, Codable {
        public var file: String
        public var size: Int64
        public var sha256: String
        public var contentType: String?
        /// What the cache did: `hit`, `revalidated`, `miss` or `stale` (`CacheStatus`); nil when no cache took part.
        public var cache: String?
        /// True once the content passed its retention and was removed (`ContentRetention`); the
        /// size and digest stay, for the record.
        public var expired: Bool?
        /// The parts of a multipart/x-mixed-replace response, whose last one is the content; nil for
        /// any other response (LC-10).
        public var parts: Int?

        public init(
            file: String, size: Int64, sha256: String, contentType: String?, cache: String? = nil, expired: Bool? = nil,
            parts: Int? = nil
        ) {
            self.file = file
            self.size = size
            self.sha256 = sha256
            self.contentType = contentType
            self.cache = cache
            self.expired = expired
            self.parts = parts
        }

        package enum CodingKeys: String, CodingKey {
            case file, size, sha256, cache, expired, parts
            case contentType = "content_type"
        }
    }
}
