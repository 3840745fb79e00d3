import NIOCore

/// The SOCKS version 5 wire format (RFC 1928), and username/password authentication (RFC 1929),
/// as far as a CONNECT-only server needs it.
enum Socks5 {
    static let version: UInt8 = 5

    enum Method {
        static let noAuthentication: UInt8 = 0x00
        static let usernamePassword: UInt8 = 0x02
        static let noneAcceptable: UInt8 = 0xFF
    }

    enum Command {
        static let connect: UInt8 = 0x01
    }

    enum AddressType {
        static let ipv4: UInt8 = 0x01
        static let domainName: UInt8 = 0x03
        static let ipv6: UInt8 = 0x04
    }

    enum Reply {
        static let succeeded: UInt8 = 0x00
        static let notAllowedByRuleset: UInt8 = 0x02
        static let connectionRefused: UInt8 = 0x05
        static let commandNotSupported: UInt8 = 0x07
        static let addressTypeNotSupported: UInt8 = 0x08
    }

    /// RFC 1929's own version byte, distinct from SOCKS's.
    static let usernamePasswordVersion: UInt8 = 0x01

    /// A reply with an all-zero IPv4 bound address: clients only look at the code, and the
    /// real bound address would tell them nothing useful on loopback.
    static func reply(_ code: UInt8) -> [UInt8] {
        [version, code, 0x00, AddressType.ipv4, 0, 0, 0, 0, 0, 0]
    }

    /// A 16-byte IPv6 address in its usual compressed text form, e.g. "::1".
    static func ipv6Text(_ bytes: [UInt8]) -> String {
        // An unreadable address becomes text no loopback check accepts.
        (try? SocketAddress(packedIPAddress: ByteBuffer(bytes: bytes), port: 0))?.ipAddress ?? "invalid-ipv6-address"
    }
}
