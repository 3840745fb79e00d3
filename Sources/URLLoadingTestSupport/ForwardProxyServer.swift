import NIOCore

/// An HTTP forward proxy on 127.0.0.1 for the engine's proxy tests.
///
/// - Absolute-form requests (`GET http://127.0.0.1:P/path HTTP/1.1`) are forwarded, one
///   request per connection: the head is rewritten to origin form with `Connection: close`,
///   then bytes are relayed both ways, and the response head also says `Connection: close`.
/// - `CONNECT host:port` answers 200 and then tunnels raw bytes.
/// - Only loopback targets are allowed (others get 403): tests never reach the network.
/// - With `requiredCredentials`, a missing or wrong `Proxy-Authorization: Basic` gets 407 with
///   `Proxy-Authenticate: Basic realm="ferry-proxy"`.
///
/// Every request is recorded in `requests`, including refused ones.
public final class ForwardProxyServer: Sendable {
    public let port: Int
    /// "http://127.0.0.1:PORT"
    public let url: String

    private let listener: LoopbackListener
    private let log: RecordList<ProxiedRequest>

    private init(listener: LoopbackListener, log: RecordList<ProxiedRequest>) {
        self.listener = listener
        self.log = log
        self.port = listener.port
        self.url = "http://127.0.0.1:\(listener.port)"
    }

    /// - Parameter digest: challenge with Digest (SHA-256, qop=auth) instead of Basic.
    public static func start(requiredCredentials: (user: String, password: String)? = nil, digest: Bool = false) async throws -> ForwardProxyServer {
        let log = RecordList<ProxiedRequest>()
        let service = ForwardProxyService(credentials: ProxyCredentials(requiredCredentials), digest: digest, log: log)
        let listener = try await LoopbackListener.start(
            configureConnection: ByteRelay.wrapBytes, serveConnection: { await service.serve($0) })
        return ForwardProxyServer(listener: listener, log: log)
    }

    /// Every request received, in arrival order.
    public var requests: [ProxiedRequest] { log.all }

    /// Stops listening and closes every client connection (and so every tunnel).
    public func shutdown() async throws {
        await listener.shutdown()
    }
}

/// What the forward proxy does with each connection.
struct ForwardProxyService: Sendable {
    let credentials: ProxyCredentials?
    let digest: Bool
    let log: RecordList<ProxiedRequest>

    static let realm = "ferry-proxy"
    static let digestNonce = "proxy-nonce-1"

    func serve(_ connection: ByteChannel) async {
        try? await connection.executeThenClose { inbound in
            let client = ProxyClientConnection(reader: ByteStreamReader(inbound), channel: connection.channel)
            guard let text = try await client.reader.readHTTPHead() else { return }
            guard let head = HTTPHeadText(text), head.startLineParts.count == 3 else {
                await client.refuse(status: "400 Bad Request", body: "malformed request head")
                return
            }
            let method = head.startLineParts[0]
            let target = head.startLineParts[1]
            let proxyAuthorization = head.header("proxy-authorization")
            log.append(ProxiedRequest(method: method, target: target, proxyAuthorization: proxyAuthorization))

            let accepted = digest
                ? credentials?.acceptDigest(
                    proxyAuthorization: proxyAuthorization, method: method, target: target, realm: Self.realm, nonce: Self.digestNonce)
                : credentials?.accept(proxyAuthorization: proxyAuthorization)
            if accepted == false {
                let challenge = digest
                    ? "Digest realm=\"\(Self.realm)\", qop=\"auth\", nonce=\"\(Self.digestNonce)\", algorithm=SHA-256"
                    : "Basic realm=\"\(Self.realm)\""
                await client.refuse(
                    status: "407 Proxy Authentication Required",
                    headers: [HeaderField(name: "Proxy-Authenticate", value: challenge)],
                    body: "proxy authentication required"
                )
            } else if method.uppercased() == "CONNECT" {
                await tunnel(to: target, for: client)
            } else {
                await forward(head, to: target, for: client)
            }
        }
    }

    /// CONNECT: a raw tunnel to `authority` ("host:port").
    private func tunnel(to authority: String, for client: ProxyClientConnection) async {
        guard let (host, port) = LoopbackTarget.splitHostAndPort(authority) else {
            await client.refuse(status: "400 Bad Request", body: "CONNECT needs host:port")
            return
        }
        guard let upstream = await connectUpstream(host: host, port: port, for: client) else { return }
        do {
            try await client.channel.writeAndFlush(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n"))
        } catch {
            try? await upstream.channel.close()
            return
        }
        await ByteRelay.run(client: client.reader, client.channel, upstream: upstream)
    }

    /// An absolute-form request: sent on in origin form, the response relayed back.
    private func forward(_ head: HTTPHeadText, to target: String, for client: ProxyClientConnection) async {
        guard let absolute = AbsoluteHTTPURI(target) else {
            await client.refuse(status: "400 Bad Request", body: "expected an absolute http:// URI")
            return
        }
        guard let upstream = await connectUpstream(host: absolute.host, port: absolute.port, for: client) else { return }

        var upstreamHead = head
        upstreamHead.startLine = "\(head.startLineParts[0]) \(absolute.pathAndQuery) \(head.startLineParts[2])"
        upstreamHead.removeHeaders(named: HTTPHeadText.hopByHopHeaders)
        if upstreamHead.header("host") == nil {
            upstreamHead.headers.insert(HeaderField(name: "Host", value: absolute.authority), at: 0)
        }
        // One request per connection keeps the relay a plain byte copy: no response framing to track.
        upstreamHead.headers.append(HeaderField(name: "Connection", value: "close"))
        do {
            try await upstream.channel.writeAndFlush(ByteBuffer(string: upstreamHead.serialized))
        } catch {
            try? await upstream.channel.close()
            await client.refuse(status: "502 Bad Gateway", body: "upstream closed")
            return
        }
        await ByteRelay.run(client: client.reader, client.channel, upstream: upstream) { upstreamReader, clientChannel in
            try await Self.relayResponseHeads(from: upstreamReader, to: clientChannel)
        }
    }

    /// Copies the response head (after any 1xx interim heads) with `Connection: close`, so the
    /// client does not try to reuse a connection the proxy is about to close.
    private static func relayResponseHeads(from upstream: ByteStreamReader, to client: Channel) async throws {
        while let text = try await upstream.readHTTPHead() {
            guard var head = HTTPHeadText(text) else { throw ByteStreamError.endOfStream }
            let status = head.startLineParts.count > 1 ? Int(head.startLineParts[1]) ?? 0 : 0
            let isInterim = (100...199).contains(status) && status != 101
            if !isInterim {
                head.removeHeaders(named: HTTPHeadText.hopByHopHeaders)
                head.headers.append(HeaderField(name: "Connection", value: "close"))
            }
            try await client.writeAndFlush(ByteBuffer(string: head.serialized))
            if !isInterim { return }
        }
    }

    /// Connects to a loopback target, or answers 403 / 502 and returns nil.
    private func connectUpstream(host: String, port: Int, for client: ProxyClientConnection) async -> ByteChannel? {
        guard let address = LoopbackTarget.address(for: host) else {
            await client.refuse(status: "403 Forbidden", body: "this test proxy only connects to loopback addresses")
            return nil
        }
        do {
            return try await ByteRelay.connect(host: address, port: port)
        } catch {
            await client.refuse(status: "502 Bad Gateway", body: "could not connect to \(host):\(port)")
            return nil
        }
    }
}
