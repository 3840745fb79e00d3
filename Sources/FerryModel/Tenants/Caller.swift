import Foundation

/// Who is calling: resolved from the bearer key by `BearerAuthMiddleware`.
public enum Caller: Sendable, Equatable {
    case admin(keyID: UUID)
    case tenant(UUID, keyID: UUID)

    public var tenantID: UUID? {
        if case .tenant(let id, _) = self { return id }
        return nil
    }
}
