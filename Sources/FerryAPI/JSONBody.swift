import FerryModel
import Foundation
import Hummingbird

/// Reads a JSON request body (at most the context's `maxUploadSize`) into a `Decodable`, turning
/// decoding failures into a 400 that names the field.
enum JSONBody {
    static func decode<Value: Decodable>(
        _ type: Value.Type, from request: Request, context: GatewayRequestContext
    ) async throws -> (value: Value, bytes: [UInt8]) {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        let bytes = Array(buffer.readableBytesView)
        if bytes.isEmpty { throw Problem.invalid([.init(field: "body", message: "a JSON object is required")]) }
        try check(bytes, request: request, context: context)
        do {
            return (try JSONDecoder().decode(Value.self, from: Data(bytes)), bytes)
        } catch let error as DecodingError {
            throw Problem.invalid(fieldErrors(error, bytes: bytes, request: request, context: context))
        }
    }

    /// Like `decode`, for an optional body: nil when the request has none.
    static func decodeIfPresent<Value: Decodable>(
        _ type: Value.Type, from request: Request, context: GatewayRequestContext
    ) async throws -> Value? {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else { return nil }
        let bytes = Array(buffer.readableBytesView)
        try check(bytes, request: request, context: context)
        do {
            return try JSONDecoder().decode(Value.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw Problem.invalid(fieldErrors(error, bytes: bytes, request: request, context: context))
        }
    }

    /// The checks before decoding. First that every object gives each field once, and that the body
    /// is JSON to `JSONSerialization` too (it reads no number beyond a `Double`, such as `1e400`, which
    /// `JSONDecoder` skips in a field it does not decode): what the checks read is then what the
    /// decoder reads (`JSONDuplicateKeys`).
    private static func check(_ bytes: [UInt8], request: Request, context: GatewayRequestContext) throws {
        let duplicates = JSONDuplicateKeys.fieldErrors(in: bytes)
        if !duplicates.isEmpty { throw Problem.invalid(duplicates) }
        guard let document = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            throw Problem.invalid([.init(field: "body", message: "is not valid JSON")])
        }
        let nul = JSONNulCheck.fieldErrors(in: bytes, document: document)
        if !nul.isEmpty { throw Problem.invalid(nul) }
        let unknown = RequestFields.unknownFields(in: document, operation: "\(request.method.rawValue) \(context.endpointPath ?? "")")
        if !unknown.isEmpty { throw Problem.invalid(unknown) }
    }

    /// A decoding error as field errors. A number that does not fit an integer field comes from
    /// Foundation as "not valid JSON" with no path: the schema finds the field.
    private static func fieldErrors(
        _ error: DecodingError, bytes: [UInt8], request: Request, context: GatewayRequestContext
    ) -> [Problem.FieldError] {
        if case .dataCorrupted(let detail) = error, detail.codingPath.isEmpty {
            let fields = RequestFields.nonIntegers(in: bytes, operation: "\(request.method.rawValue) \(context.endpointPath ?? "")")
            if !fields.isEmpty { return fields }
        }
        return [fieldError(error)]
    }

    static func fieldError(_ error: DecodingError) -> Problem.FieldError {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return text.isEmpty ? "body" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return .init(field: path(context.codingPath), message: "must be \(describe(type))")
        case .valueNotFound(let type, let context):
            return .init(field: path(context.codingPath), message: "must be \(describe(type)), not null")
        case .keyNotFound(let key, let context):
            return .init(field: path(context.codingPath + [key]), message: "is required")
        case .dataCorrupted(let context):
            return .init(field: path(context.codingPath), message: context.codingPath.isEmpty ? "is not valid JSON" : context.debugDescription)
        @unknown default:
            return .init(field: "body", message: "cannot be read")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "an object of the documented shape"
        }
    }
}
