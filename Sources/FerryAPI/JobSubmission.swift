import FerryModel
import Foundation
import URLLoading

/// The body of `POST /v1/jobs`, as clients write it, and its validation into a `JobSpecification`.
///
/// Every problem is collected with the field it concerns, so one 400 lists all of them.
struct JobSubmission: Decodable {
    var kind: String?
    var request: RequestPart?
    var session: String?
    var priority: Int?
    var retry: RetryPart?
    var timeouts: TimeoutsPart?
    var redirects: RedirectsPart?
    var checksum: ChecksumPart?
    var callback: CallbackPart?
    /// `use_protocol`, `reload_ignoring_cache`, `return_cache_else_load` or `return_cache_dont_load` (CA-05).
    var cachePolicy: String?
    var decisions: DecisionsPart?
    /// Ask the origin for a compressed body and store it decoded; such a job restarts from byte 0
    /// whenever it is resumed.
    var compressed: Bool?
    /// Days the content is kept after the job succeeded, instead of `FERRY_CONTENT_RETENTION_DAYS`.
    var retentionDays: Int?
    /// False: the job's requests neither send nor store cookies (CK-02).
    var cookies: Bool?
    /// An RFC 3339 time before which the job does not start (BG-18).
    var notBefore: String?
    /// The content size the client expects (BG-19): counted against the storage quota until the job ends.
    var expectedBytes: Int64?

    enum CodingKeys: String, CodingKey {
        case kind, request, session, priority, retry, timeouts, redirects, checksum, callback
        case decisions, compressed, cookies
        case retentionDays = "retention_days"
        case notBefore = "not_before"
        case cachePolicy = "cache_policy"
        case expectedBytes = "expected_bytes"
    }

    struct RequestPart: Decodable {
        var url: String?
        var method: String?
        var headers: [String: String]?
        var body: BodyPart?
    }

    /// A string (sent as UTF-8), or one of `{"base64"}`, `{"blob": id}`, `{"job": id}`.
    enum BodyPart: Decodable {
        case text(String)
        case object(base64: String?, blob: String?, job: String?)

        private enum Keys: String, CodingKey { case base64, blob, job }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                self = .text(text)
                return
            }
            let container = try decoder.container(keyedBy: Keys.self)
            self = .object(
                base64: try container.decodeIfPresent(String.self, forKey: .base64),
                blob: try container.decodeIfPresent(String.self, forKey: .blob),
                job: try container.decodeIfPresent(String.self, forKey: .job))
        }
    }

    struct RetryPart: Decodable {
        var maxAttempts: Int?
        enum CodingKeys: String, CodingKey { case maxAttempts = "max_attempts" }
    }

    struct TimeoutsPart: Decodable {
        var idle: Double?
        var total: Double?
    }

    struct RedirectsPart: Decodable {
        var follow: Bool?
        var max: Int?
    }

    struct ChecksumPart: Decodable {
        var sha256: String?
    }

    struct CallbackPart: Decodable {
        var url: String?
    }

    static let defaultMaxAttempts = 3
    static let maximumAttempts = 20
    static let defaultMaxRedirects = 10
    static let maximumRedirects = 20
    static let maximumHeaders = 64
    static let maximumExpectedBytes: Int64 = 1 << 50
    static let maximumHeaderValueLength = 8192
    /// All names and values of a job's (or a session's) headers together, in bytes: what a server
    /// accepts as a whole request head is commonly 8 to 64 KiB.
    static let maximumHeaderBytes = 65536

    /// Header fields a job may not set: they describe the connection, which is the engine's, or would
    /// let a job speak for the gateway (RFC 9110 §7.6.1 hop-by-hop fields, Host, framing).
    static let refusedHeaders: Set<String> = [
        "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "upgrade", "trailer",
        "content-length", "expect", "proxy-authorization", "proxy-authenticate",
    ]

    private static let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)

    /// RFC 9110 §5.6.2's token, which header names and methods are: one or more of these ASCII bytes.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
                || tokenPunctuation.contains(byte)
        }
    }

    /// Why a header may not be sent as given, or nil when it may.
    ///
    /// Checked in bytes, not Swift characters: "\r\n" is one `Character`, and would pass a
    /// character-wise search for "\r" or "\n".
    static func headerProblem(name: String, value: String) -> String? {
        if !isToken(name) { return "is not a valid header name" }
        if refusedHeaders.contains(name.lowercased()) { return "may not be set by a job: the gateway's engine manages it" }
        // RFC 9110 §5.5: field values are visible characters, spaces and tabs; CR, LF and NUL in
        // particular would split or end the request line.
        if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return "must not contain line breaks, NUL or other control characters"
        }
        if value.utf8.count > maximumHeaderValueLength { return "is longer than \(maximumHeaderValueLength) bytes" }
        return nil
    }

    /// Why a set of headers is too big together, or nil.
    static func headerBytesProblem(_ headers: [String: String]) -> String? {
        let bytes = headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        return bytes > maximumHeaderBytes ? "names and values together are longer than \(maximumHeaderBytes) bytes" : nil
    }

    func validated(urlPolicy: OutboundURLPolicy) throws(Problem) -> JobSpecification {
        var errors: [Problem.FieldError] = []
        func problem(_ field: String, _ message: String) { errors.append(.init(field: field, message: message)) }

        let kind: JobSpecification.Kind?
        switch self.kind {
        case nil: problem("kind", "is required: download, upload or data"); kind = nil
        case let text?:
            kind = JobSpecification.Kind(rawValue: text)
            if kind == nil { problem("kind", "must be download, upload or data, not '\(text)'") }
        }

        var url = ""
        if let text = request?.url {
            if let message = SubmittedURL.problem(text, policy: urlPolicy, webOnly: false) { problem("request.url", message) } else { url = text }
        } else {
            problem("request.url", "is required")
        }

        var body: JobSpecification.Body?
        switch request?.body {
        case nil: body = nil
        case .text(let text)?: body = .inline(Data(text.utf8))
        case .object(let base64, let blob, let job)?:
            let given = [base64, blob, job].compactMap { $0 }.count
            if given != 1 {
                problem("request.body", "give exactly one of a string, {\"base64\"}, {\"blob\": id} or {\"job\": id}")
            } else if let base64 {
                if let data = Data(base64Encoded: base64) { body = .inline(data) } else { problem("request.body.base64", "is not valid base64") }
            } else if let blob {
                if let id = UUID(idText: blob) { body = .blob(id) } else { problem("request.body.blob", "is not a blob id") }
            } else if let job {
                if let id = UUID(idText: job) { body = .jobContent(id) } else { problem("request.body.job", "is not a job id") }
            }
        }
        if kind == .upload, request?.body == nil { problem("request.body", "an upload job needs a body") }

        let method = (request?.method ?? (kind == .upload ? "POST" : "GET")).uppercased()
        if !Self.isToken(method) || method.utf8.count > 32 {
            problem("request.method", "must be an HTTP method name such as GET or POST")
        }

        var headers: [JobSpecification.Header] = []
        let given = (request?.headers ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        if given.count > Self.maximumHeaders { problem("request.headers", "at most \(Self.maximumHeaders) headers") }
        if let message = Self.headerBytesProblem(request?.headers ?? [:]) { problem("request.headers", message) }
        for (name, value) in given {
            if let message = Self.headerProblem(name: name, value: value) {
                problem("request.headers.\(name)", message)
            } else {
                headers.append(.init(name: name, value: value))
            }
        }

        var sessionID: UUID?
        if let text = session {
            sessionID = UUID(idText: text)
            if sessionID == nil { problem("session", "is not a session id") }
        }

        let priority = self.priority ?? 0
        if !(-1000...1000).contains(priority) { problem("priority", "must be between -1000 and 1000") }

        let maxAttempts = retry?.maxAttempts ?? Self.defaultMaxAttempts
        if !(1...Self.maximumAttempts).contains(maxAttempts) { problem("retry.max_attempts", "must be between 1 and \(Self.maximumAttempts)") }

        if let idle = timeouts?.idle, !(idle > 0 && idle <= 3600) { problem("timeouts.idle", "must be more than 0 and at most 3600 seconds") }
        if let total = timeouts?.total, !(total > 0 && total <= 7 * 86400) {
            problem("timeouts.total", "must be more than 0 and at most 604800 seconds (7 days)")
        }

        let maxRedirects = redirects?.max ?? Self.defaultMaxRedirects
        if !(0...Self.maximumRedirects).contains(maxRedirects) { problem("redirects.max", "must be between 0 and \(Self.maximumRedirects)") }

        var sha256: String?
        if let text = checksum?.sha256 {
            let lower = text.lowercased()
            if lower.count == 64, lower.allSatisfy(\.isHexDigit) { sha256 = lower } else { problem("checksum.sha256", "must be 64 hex digits") }
        }

        var callbackURL: String?
        if let callback {
            if let message = SubmittedURL.problem(callback.url ?? "", policy: urlPolicy, webOnly: true) {
                problem("callback.url", message)
            } else {
                callbackURL = callback.url
            }
        }

        if let cachePolicy, RequestCachePolicy(apiName: cachePolicy) == nil {
            problem("cache_policy", RequestCachePolicy.apiNameProblem)
        }
        let decisions = self.decisions?.validated(field: "decisions", errors: &errors)
        if let retentionDays, !(1...36_500).contains(retentionDays) { problem("retention_days", "must be between 1 and 36500 days") }
        var notBefore: Date?
        if let text = self.notBefore {
            notBefore = EarliestStart.parse(text)
            if notBefore == nil { problem("not_before", EarliestStart.problem) }
        }

        if let expectedBytes, !(0...Self.maximumExpectedBytes).contains(expectedBytes) {
            problem("expected_bytes", "must be from 0 to \(Self.maximumExpectedBytes) bytes (1 PiB)")
        }

        guard errors.isEmpty, let kind else { throw Problem.invalid(errors) }
        return JobSpecification(
            kind: kind,
            request: .init(url: url, method: method, headers: headers, body: body),
            policies: .init(
                idleTimeout: timeouts?.idle, totalTimeout: timeouts?.total, followRedirects: redirects?.follow ?? true,
                maxRedirects: maxRedirects, sha256: sha256, callbackURL: callbackURL, cachePolicy: cachePolicy, decisions: decisions,
                compressed: compressed == true ? true : nil, retentionDays: retentionDays,
                cookies: cookies == false ? false : nil, notBefore: notBefore.map(JobView.timestamp), expectedBytes: expectedBytes),
            priority: priority, maxAttempts: maxAttempts, sessionID: sessionID)
    }
}
