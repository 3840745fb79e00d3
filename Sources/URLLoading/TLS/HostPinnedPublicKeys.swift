/// Public-key pins for one host (and port) only (TLS-08, TLS-09): a session that reaches many hosts,
/// such as a gateway tenant's, can pin each server's key without pinning every other host to it.
///
/// Like the session-wide `SessionConfiguration.pinnedPublicKeys`, a pin only tightens trust: curl
/// checks the leaf's key after the chain was accepted, so the chain must still be trusted by the
/// system store, a CA or a trusted certificate. Several entries for one server add up (any of their
/// pins will do, e.g. the current key and its successor); with session-wide pins as well, the key must
/// satisfy both.
public struct HostPinnedPublicKeys: Sendable, Hashable, HostScoped {
    public var host: String
    /// Nil: any port of the host.
    public var port: Int?
    /// `sha256//` and the Base64 of the SHA-256 of a SubjectPublicKeyInfo, as curl writes them (see `PublicKeyPin`).
    public var pins: Set<String>

    public init(host: String, port: Int? = nil, pins: Set<String>) {
        self.host = host.lowercased()
        self.port = port
        self.pins = pins
    }
}
