/// A TLS setting that belongs to one server: a host, and a port unless it holds for every port. Each
/// hop of a task looks up its own server's settings, so a redirect to another host never carries the
/// previous host's certificates, CAs or pins along.
protocol HostScoped {
    /// Lower case; compared with the hop's host as `ConnectionDecisions.Server` names it (IPv6
    /// literals without brackets).
    var host: String { get }
    /// Nil: any port of the host.
    var port: Int? { get }
}

extension HostScoped {
    func applies(to server: ConnectionDecisions.Server) -> Bool {
        host == server.host && (port == nil || port == server.port)
    }
}
