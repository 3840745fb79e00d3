import Foundation
import Hummingbird

/// An API error as an RFC 9457 problem details document, with a stable `code` clients can branch on.
///
/// Every error the API returns is one of these (`ProblemMiddleware` turns anything else into one), so
/// a client has one error shape to parse. `detail` is written for people and never contains secrets.
public struct Problem: HTTPResponseError, Equatable {
    public struct FieldError: Sendable, Equatable, Codable {
        /// Where the problem is, as a dotted path into the request body: `request.url`, `retry.max_attempts`.
        public var field: String
        public var message: String

        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }
    }

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

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let document = Document(
            type: "https://ferry.invalid/problems/\(code)", title: status.reasonPhrase, status: status.code,
            detail: detail, code: code, errors: errors.isEmpty ? nil : errors)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(data: try encoder.encode(document))))
    }
}
