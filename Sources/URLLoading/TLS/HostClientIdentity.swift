/// A client certificate presented to one host (and port) only, when that server asks for one
/// (TLS-11): a session that reaches many hosts can hold a different identity for each.
public struct HostClientIdentity: Sendable, Equatable, HostScoped {
    public var host: String
    /// Nil: any port of the host.
    public var port: Int?
    public var identity: ClientIdentity

    public init(host: String, port: Int? = nil, identity: ClientIdentity) {
        self.host = host.lowercased()
        self.port = port
        self.identity = identity
    }
}
