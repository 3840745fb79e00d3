import FerryModel
import Foundation
import Hummingbird

/// The request context of every gateway route: Hummingbird's core storage plus the caller.
public struct GatewayRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `BearerAuthMiddleware` before any `/v1` route runs.
    public var caller: Caller?

    public init(source: Source) {
        coreContext = .init(source: source)
        caller = nil
    }

    /// Sorted keys and plain slashes: stable output that diffs well and reads well in a terminal.
    public var responseEncoder: JSONEncoder { Self.jsonEncoder }

    /// The encoder of every JSON the API sends, in responses and in event streams and webhooks alike.
    package static var jsonEncoder: JSONEncoder { WireJSON.encoder }

    /// JSON request bodies are small; blobs are streamed and not decoded through this limit.
    public var maxUploadSize: Int { 1 << 20 }

    /// The tenant of a tenant-key request; admin keys get a 403 on tenant routes.
    package func requireTenant() throws -> UUID {
        switch caller {
        case .tenant(let id, _)?: return id
        case .admin?:
            throw Problem(.forbidden, code: "tenant_key_required", "this route acts for a tenant: use a tenant's API key (admins use /v1/admin)")
        case nil:
            throw Problem(.unauthorized, code: "unauthenticated", "send Authorization: Bearer <api key>")
        }
    }

    package func requireAdmin() throws {
        switch caller {
        case .admin?: return
        case .tenant?: throw Problem(.forbidden, code: "admin_key_required", "this route needs the admin key")
        case nil: throw Problem(.unauthorized, code: "unauthenticated", "send Authorization: Bearer <api key>")
        }
    }
}
