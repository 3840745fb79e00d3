import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sets `Prefer` (RFC 7240) on the request as written. The document's `Prefer` header parameter
/// cannot carry it: swift-openapi-runtime escapes header parameter values as URI components, so
/// `wait=5` would reach ferryd as `wait%3D5`, a preference it does not read.
struct PreferHeaderMiddleware: ClientMiddleware {
    let preference: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        // A valid field name: never nil.
        if let prefer = HTTPField.Name("Prefer") { request.headerFields[prefer] = preference }
        return try await next(request, body, baseURL)
    }
}
