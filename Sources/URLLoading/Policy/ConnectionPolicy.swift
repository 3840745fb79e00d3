import Foundation

/// An IP address and port the engine is about to connect to, after name resolution.
public struct ConnectionAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case ipv4, ipv6 }

    public let family: Family
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    public let bytes: [UInt8]
    public let port: Int

    public init(family: Family, bytes: [UInt8], port: Int) {
        self.family = family
        self.bytes = bytes
        self.port = port
    }

    /// "192.0.2.1" or "2001:db8::1".
    public var host: String {
        var buffer = [UInt8](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { raw in
            buffer.withUnsafeMutableBufferPointer { out in
                out.baseAddress.map { base in
                    base.withMemoryRebound(to: CChar.self, capacity: out.count) {
                        inet_ntop(family == .ipv4 ? AF_INET : AF_INET6, raw.baseAddress, $0, socklen_t(out.count)) != nil
                    }
                } ?? false
            }
        }
        guard written, let end = buffer.firstIndex(of: 0) else { return "?" }
        return String(decoding: buffer[..<end], as: UTF8.self)
    }

    public var description: String {
        family == .ipv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }
}

/// Decides which addresses a session may connect to. It is asked for every connection, with the
/// address name resolution produced, right before connecting: redirect hops, proxies and FTP data
/// connections included, so a name that resolves somewhere else later (DNS rebinding) cannot pass.
/// A refused connection fails the task with `destination_forbidden`.
public final class ConnectionPolicy: Sendable, Equatable {
    public let name: String
    private let decide: @Sendable (ConnectionAddress) -> Bool

    public init(name: String, allows: @escaping @Sendable (ConnectionAddress) -> Bool) {
        self.name = name
        self.decide = allows
    }

    public func allows(_ address: ConnectionAddress) -> Bool { decide(address) }

    public static func == (lhs: ConnectionPolicy, rhs: ConnectionPolicy) -> Bool { lhs === rhs }
}
