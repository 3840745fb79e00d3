/// Where the proxies may connect: this machine only.
///
/// Tests must never reach the network, even by mistake in a test's URL, so the proxies refuse
/// any other destination instead of relaying to it.
enum LoopbackTarget {
    /// The address to connect to for `host`, or nil when it is not a loopback name or address.
    /// "localhost" maps to 127.0.0.1, where the test servers listen, rather than to whatever
    /// the resolver prefers.
    static func address(for host: String) -> String? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        switch bare.lowercased() {
        case "localhost", "localhost.":
            return "127.0.0.1"
        case "::1", "0:0:0:0:0:0:0:1":
            return "::1"
        default:
            return isIPv4Loopback(bare) ? bare : nil
        }
    }

    /// 127.0.0.0/8 in dotted-quad form.
    private static func isIPv4Loopback(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        let octets = parts.compactMap { UInt8($0) }
        return octets.count == 4 && octets[0] == 127
    }

    /// Splits "host:port" or "[v6]:port"; nil when the port is missing or invalid.
    static func splitHostAndPort(_ authority: String) -> (host: String, port: Int)? {
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        let host = String(authority[..<colon])
        guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port), !host.isEmpty else {
            return nil
        }
        return (host, port)
    }
}
