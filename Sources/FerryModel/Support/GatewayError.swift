import Foundation

/// Why the gateway refused something, in domain terms: what kind of refusal it is, a stable `code`
/// clients can branch on, and a sentence for people (never a secret).
///
/// The store, the model and the runtime throw these; they know nothing of HTTP. The API's
/// `ProblemMiddleware` is the one place a kind becomes an HTTP status.
public struct GatewayError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The thing named does not exist, or belongs to another tenant.
        case notFound
        /// The thing exists but is in a state that does not allow this.
        case conflict
        /// A quota or limit is reached; trying again later may succeed.
        case limit
        /// The input itself is wrong; `fields` says where.
        case invalid
        /// There is no room to store it: the tenant's storage quota is used up.
        case insufficientStorage
        /// Something the gateway needs (its database) is away for now; trying again after
        /// `retryAfterSeconds` may succeed.
        case unavailable
    }

    public var kind: Kind
    public var code: String
    public var detail: String
    public var fields: [FieldError]
    /// For `limit` and `unavailable`: when trying again makes sense.
    public var retryAfterSeconds: Int?

    public init(_ kind: Kind, code: String, _ detail: String, fields: [FieldError] = [], retryAfterSeconds: Int? = nil) {
        self.kind = kind
        self.code = code
        self.detail = detail
        self.fields = fields
        self.retryAfterSeconds = retryAfterSeconds
    }

    public static func notFound(_ what: String) -> GatewayError {
        GatewayError(.notFound, code: "not_found", "\(what) was not found")
    }

    public static func invalid(_ fields: [FieldError]) -> GatewayError {
        let summary = fields.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
        return GatewayError(.invalid, code: "invalid_request", summary, fields: fields)
    }

    public var description: String { "\(code): \(detail)" }
}

/// One invalid part of an input, for people and for programs.
public struct FieldError: Sendable, Equatable, Codable {
    /// Where the problem is, as a dotted path into the request body: `request.url`, `retry.max_attempts`.
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}
