import FerryModel
import FerryStore
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
        guard let key = Self.bearerKey(header) else {
            throw Problem(.unauthorized, code: "unauthenticated", "the Authorization header must be 'Bearer <api key>'",
                          headers: [.wwwAuthenticate: "Bearer"])
        }
        guard let caller = try await keys.caller(for: APIKey(text: key)) else {
            throw Problem(.unauthorized, code: "invalid_api_key", "the API key is unknown or revoked",
                          headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        }
        var context = context
        context.caller = caller
        return try await next(request, context)
    }

    /// The key of `Bearer <key>`: the scheme in any case, then a space, then the key without the
    /// spaces or tabs around it; nil for anything else. Byte by byte: this runs on every request, and
    /// Foundation's trimming (through NSString) cost more than the rest of the request (bench P4).
    static func bearerKey(_ header: String) -> String? {
        let bytes = Array(header.utf8)
        let scheme = Array("bearer".utf8)
        // `| 0x20` lowers an ASCII capital, and matches nothing else to these lower-case letters.
        guard bytes.count > scheme.count + 1, zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }),
              bytes[scheme.count] == UInt8(ascii: " ")
        else { return nil }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes[(scheme.count + 1)...].firstIndex(where: { !isBlank($0) }),
              let last = bytes.lastIndex(where: { !isBlank($0) })
        else { return nil }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
