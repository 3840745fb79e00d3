// The access levels the generated files import these with: a module imported at two levels in one
// target does not compile.
package import struct Foundation.URL
import HTTPTypes
package import OpenAPIRuntime

/// Sends an API key as every request's bearer token: the document's `bearer` security scheme, which
/// swift-openapi-generator leaves to a middleware.
package struct BearerAuthentication: ClientMiddleware {
    private let authorization: String

    package init(apiKey: String) {
        authorization = "Bearer \(apiKey)"
    }

    package func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = authorization
        return try await next(request, body, baseURL)
    }
}
