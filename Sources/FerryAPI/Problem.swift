import FerryModel
import Foundation
import Hummingbird

/// An API error as an RFC 9457 problem details document, with a stable `code` clients can branch on.
///
/// Every error the API returns is one of these (`ProblemMiddleware` turns anything else into one), so
/// a client has one error shape to parse. `detail` is written for people and never contains secrets.
public struct Problem: HTTPResponseError, Equatable {
    public typealias FieldError = FerryModel.FieldError

    public var status: HTTPResponse.Status
    public var code: String
    public var detail: String
    public var errors: [FieldError]
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, _ detail: String, errors: [FieldError] = [], headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors
        self.headers = headers
    }

    public static func notFound(_ what: String) -> Problem {
        Problem(.notFound, code: "not_found", "\(what) was not found")
    }

    /// The HTTP face of a domain refusal: the one place a `GatewayError.Kind` becomes a status.
    public init(_ error: GatewayError) {
        let status: HTTPResponse.Status = switch error.kind {
        case .notFound: .notFound
        case .conflict: .conflict
        case .limit: .tooManyRequests
        case .invalid: .badRequest
        case .insufficientStorage: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        case .unavailable: .serviceUnavailable
        }
        var headers: HTTPFields = [:]
        if let seconds = error.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        self.init(status, code: error.code, error.detail, errors: error.fields, headers: headers)
    }

    public static func invalid(_ errors: [FieldError]) -> Problem {
        let summary = errors.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
        return Problem(.badRequest, code: "invalid_request", summary, errors: errors)
    }

    private struct Document: Encodable {
        let type: String
        let title: String
        let status: Int
        let detail: String
        let code: String
        let errors: [FieldError]?
    }

    /// The problem document's JSON.
    public func document() throws -> Data {
        let document = Document(
            type: "https://ferry.invalid/problems/\(code)", title: status.reasonPhrase, status: status.code,
            detail: detail, code: code, errors: errors.isEmpty ? nil : errors)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(data: try document())))
    }
}
