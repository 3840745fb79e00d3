import NIOCore

/// A SOCKS5 proxy on 127.0.0.1 (RFC 1928) for the engine's proxy tests.
///
/// It speaks CONNECT only, takes IPv4, domain-name and IPv6 destinations, offers no
/// authentication or, with `requiredCredentials`, username/password (RFC 1929), and relays
/// bytes both ways. Only loopback destinations are allowed: tests never reach the network.
public final class Socks5Server: Sendable {
    public let port: Int
    /// "socks5://127.0.0.1:PORT"
    public let url: String

    private let listener: LoopbackListener
    private let log: RecordList<String>

    private init(listener: LoopbackListener, log: RecordList<String>) {
        self.listener = listener
        self.log = log
        self.port = listener.port
        self.url = "socks5://127.0.0.1:\(listener.port)"
    }

    public static func start(requiredCredentials: (user: String, password: String)? = nil) async throws -> Socks5Server {
        let log = RecordList<String>()
        let service = Socks5Service(credentials: ProxyCredentials(requiredCredentials), log: log)
        let listener = try await LoopbackListener.start(
            configureConnection: ByteRelay.wrapBytes, serveConnection: { await service.serve($0) })
        return Socks5Server(listener: listener, log: log)
    }

    /// Destinations connected to, as "host:port" in the form the client asked for
    /// (a domain name stays a name), in order.
    public var connections: [String] { log.all }

    /// Stops listening and closes every connection (and so every relay).
    public func shutdown() async throws {
        await listener.shutdown()
    }
}

/// What the SOCKS5 server does with each connection.
struct Socks5Service: Sendable {
    let credentials: ProxyCredentials?
    let log: RecordList<String>

    func serve(_ connection: ByteChannel) async {
        try? await connection.executeThenClose { inbound in
            let reader = ByteStreamReader(inbound)
            let channel = connection.channel
            guard try await negotiateAuthentication(reader, channel) else { return }

            // Request: VER CMD RSV ATYP DST.ADDR DST.PORT
            let request = try await reader.readExactly(4)
            guard request[0] == Socks5.version else { return }
            guard let host = try await readDestinationHost(addressType: request[3], reader) else {
                try await channel.writeAndFlush(ByteBuffer(bytes: Socks5.reply(Socks5.Reply.addressTypeNotSupported)))
                return
            }
            let portBytes = try await reader.readExactly(2)
            let port = Int(portBytes[0]) << 8 | Int(portBytes[1])
            guard request[1] == Socks5.Command.connect else {
                try await channel.writeAndFlush(ByteBuffer(bytes: Socks5.reply(Socks5.Reply.commandNotSupported)))
                return
            }
            guard let address = LoopbackTarget.address(for: host) else {
                try await channel.writeAndFlush(ByteBuffer(bytes: Socks5.reply(Socks5.Reply.notAllowedByRuleset)))
                return
            }
            let upstream: ByteChannel
            do {
                upstream = try await ByteRelay.connect(host: address, port: port)
            } catch {
                try await channel.writeAndFlush(ByteBuffer(bytes: Socks5.reply(Socks5.Reply.connectionRefused)))
                return
            }
            log.append(host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
            try await channel.writeAndFlush(ByteBuffer(bytes: Socks5.reply(Socks5.Reply.succeeded)))
            await ByteRelay.run(client: reader, channel, upstream: upstream)
        }
    }

    /// Greeting and method selection, then RFC 1929 when credentials are required.
    /// - Returns: whether the client may go on to its request.
    private func negotiateAuthentication(_ reader: ByteStreamReader, _ channel: Channel) async throws -> Bool {
        // Greeting: VER NMETHODS METHODS...
        let greeting = try await reader.readExactly(2)
        guard greeting[0] == Socks5.version else { return false }
        let offered = try await reader.readExactly(Int(greeting[1]))
        let wanted = credentials == nil ? Socks5.Method.noAuthentication : Socks5.Method.usernamePassword
        guard offered.contains(wanted) else {
            try await channel.writeAndFlush(ByteBuffer(bytes: [Socks5.version, Socks5.Method.noneAcceptable]))
            return false
        }
        try await channel.writeAndFlush(ByteBuffer(bytes: [Socks5.version, wanted]))
        guard let credentials else { return true }

        // VER ULEN UNAME PLEN PASSWD
        let version = try await reader.readExactly(1)[0]
        let user = try await reader.readExactly(Int(reader.readExactly(1)[0]))
        let password = try await reader.readExactly(Int(reader.readExactly(1)[0]))
        let accepted = version == Socks5.usernamePasswordVersion
            && String(decoding: user, as: UTF8.self) == credentials.user
            && String(decoding: password, as: UTF8.self) == credentials.password
        try await channel.writeAndFlush(ByteBuffer(bytes: [Socks5.usernamePasswordVersion, accepted ? 0x00 : 0x01]))
        return accepted
    }

    /// DST.ADDR as text, or nil for an unknown address type.
    private func readDestinationHost(addressType: UInt8, _ reader: ByteStreamReader) async throws -> String? {
        switch addressType {
        case Socks5.AddressType.ipv4:
            return try await reader.readExactly(4).map(String.init).joined(separator: ".")
        case Socks5.AddressType.domainName:
            let length = Int(try await reader.readExactly(1)[0])
            return String(decoding: try await reader.readExactly(length), as: UTF8.self)
        case Socks5.AddressType.ipv6:
            return Socks5.ipv6Text(try await reader.readExactly(16))
        default:
            return nil
        }
    }
}
