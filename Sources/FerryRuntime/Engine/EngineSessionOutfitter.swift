import FerryModel
import URLLoading

/// Gives a new engine session what its owner keeps in the gateway: the credential vault, the
/// session's cookie jar, the tenant's cache. One outfitter per concern; `JobEngine` applies each.
public protocol EngineSessionOutfitter: Sendable {
    /// Called once, when the engine session is made.
    func outfit(_ configuration: inout SessionConfiguration, for owner: EngineSessionOwner)
    /// Called before each job's transfer in the owner's session: brings what another ferryd may have
    /// changed since (a cookie another job set) into the engine session's storage. `stored` says
    /// what the job's claim found in the database, so that nothing is read that is not there.
    func prepare(for owner: EngineSessionOwner, stored: OwnerStoredState) async throws
    /// A job of the owner ended with this 401: what the outfitter's storage knows about why (a stored
    /// credential the server refused, or one that cannot be opened), to say so in the job's error.
    func explainUnauthorized(_ response: TransferResponse, for owner: EngineSessionOwner) async -> AuthenticationRefusal?
    /// Names what `outfit` fixes into a new engine session that a live one cannot change (TLS
    /// settings): when the name changes, the owner's next jobs get a new engine session. Empty when
    /// the outfitter fixes nothing.
    func fixedOutfit(for owner: EngineSessionOwner) -> String
    /// Called after each job's transfer in the owner's session, before the job's end is recorded:
    /// writes what the transfer changed (cookies set, responses cached), so the next job, on any
    /// ferryd, finds it.
    func settle(for owner: EngineSessionOwner) async throws
}

extension EngineSessionOutfitter {
    public func prepare(for owner: EngineSessionOwner, stored: OwnerStoredState) async throws {}
    public func explainUnauthorized(_ response: TransferResponse, for owner: EngineSessionOwner) async -> AuthenticationRefusal? { nil }
    public func fixedOutfit(for owner: EngineSessionOwner) -> String { "" }
    public func settle(for owner: EngineSessionOwner) async throws {}
}

/// Why a job's 401 was not answered successfully, as the job's error code and message.
public struct AuthenticationRefusal: Sendable, Equatable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
