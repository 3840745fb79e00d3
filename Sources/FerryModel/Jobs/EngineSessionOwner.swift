import Foundation

/// Whose engine session it is: a tenant's jobs outside any gateway session share one per setting,
/// and each gateway session has its own. Nothing an engine session keeps (credentials, cookies,
/// cached responses) is ever shared between tenants or between gateway sessions.
///
/// Connections are the engine's loops', pooled by curl for every session: curl reuses one only for a
/// transfer with the same TLS settings (pins, CAs, client certificate) and proxy, and two kinds are
/// closed after their transfer, never reused: a connection whose server trust the engine decided
/// (a vault certificate, a trust decision) and a tunnel a proxy challenge's answer authenticated.
public struct EngineSessionOwner: Hashable, Sendable {
    public var tenantID: UUID
    /// The gateway session, nil for jobs submitted without one.
    public var sessionID: UUID?
    /// An ephemeral gateway session keeps nothing beyond itself (SES-03).
    public var isEphemeral: Bool

    public init(tenantID: UUID, sessionID: UUID?, isEphemeral: Bool) {
        self.tenantID = tenantID
        self.sessionID = sessionID
        self.isEphemeral = isEphemeral
    }
}
