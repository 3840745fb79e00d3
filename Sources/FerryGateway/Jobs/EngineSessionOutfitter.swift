import URLLoading

/// Gives a new engine session what its owner keeps in the gateway: the credential vault, the
/// session's cookie jar, the tenant's cache. One outfitter per concern; `JobEngine` applies each.
public protocol EngineSessionOutfitter: Sendable {
    /// Called once, when the engine session is made.
    func outfit(_ configuration: inout SessionConfiguration, for owner: EngineSessionOwner)
    /// Called before each job's transfer in the owner's session: brings what another ferryd may have
    /// changed since (a cookie another job set) into the engine session's storage.
    func prepare(for owner: EngineSessionOwner) async throws
    /// Called after each job's transfer in the owner's session, before the job's end is recorded:
    /// writes what the transfer changed (cookies set, responses cached), so the next job, on any
    /// ferryd, finds it.
    func settle(for owner: EngineSessionOwner) async throws
}

extension EngineSessionOutfitter {
    public func prepare(for owner: EngineSessionOwner) async throws {}
    public func settle(for owner: EngineSessionOwner) async throws {}
}
