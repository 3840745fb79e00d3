import Foundation
import Hummingbird

/// Resolves `Authorization: Bearer <key>` to the caller before any `/v1` route runs; a missing,
/// malformed, unknown or revoked key is a 401 that says which, never which keys exist.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let keys: KeyStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Problem(.unauthorized, code: "unauthenticated", "send Authorization: Bearer <api key>",
                          headers: [.wwwAuthenticate: "Bearer"])
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw Problem(.unauthorized, code: "unauthenticated", "the Authorization header must be 'Bearer <api key>'",
                          headers: [.wwwAuthenticate: "Bearer"])
        }
        guard let caller = try await keys.caller(for: APIKey(text: String(parts[1]).trimmingCharacters(in: .whitespaces))) else {
            throw Problem(.unauthorized, code: "invalid_api_key", "the API key is unknown or revoked",
                          headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        }
        var context = context
        context.caller = caller
        return try await next(request, context)
    }
}
