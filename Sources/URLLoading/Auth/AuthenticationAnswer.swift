import Foundation

/// A protection space a 401 or 407 offered, with the challenge that offered it.
struct OfferedSpace: Sendable {
    var space: ProtectionSpace
    var challenge: ParsedChallenge
    var digest: DigestChallenge?

    /// The spaces a challenge response offers that the engine can answer (Basic, Digest, Bearer), the
    /// strongest first, as curl's --anyauth picks: Digest (SHA-256 before MD5), then Bearer, then Basic;
    /// otherwise in the server's order. One space offered twice (Digest with two algorithms) keeps its
    /// strongest challenge.
    static func offered(by challenges: [ParsedChallenge], host: String, port: Int, scheme: String, isProxy: Bool)
        -> [OfferedSpace]
    {
        var offers: [OfferedSpace] = []
        for challenge in challenges {
            guard let method = challenge.authenticationMethod, [.httpBasic, .httpDigest, .bearer].contains(method) else {
                continue
            }
            let digest = DigestChallenge(challenge)
            if method == .httpDigest, digest == nil { continue }
            let offer = OfferedSpace(
                space: ProtectionSpace(host: host, port: port, scheme: scheme, realm: challenge.realm,
                                       authenticationMethod: method, isProxy: isProxy),
                challenge: challenge, digest: digest)
            if let existing = offers.firstIndex(where: { $0.space == offer.space }) {
                if offer.strength > offers[existing].strength { offers[existing] = offer }
            } else {
                offers.append(offer)
            }
        }
        // Stable: equal strengths keep the server's order.
        return offers.enumerated().sorted { ($0.element.strength, -$0.offset) > ($1.element.strength, -$1.offset) }
            .map(\.element)
    }

    private var strength: Int {
        switch space.authenticationMethod {
        case .httpDigest: 2 + (digest?.algorithm.strength ?? 0)
        case .bearer: 1
        default: 0
        }
    }
}

/// A credential answering one protection space: the `Authorization` (or, for a proxy,
/// `Proxy-Authorization`) field it puts on each request sent to that space (AU-12).
struct AuthenticationAnswer: Sendable {
    let space: ProtectionSpace
    let credential: Credential
    private var digest: DigestChallenge?
    /// Requests sent with the current Digest nonce (RFC 7616 `nc`).
    private var nonceCount = 0
    private let clientNonce = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    /// The credential was accepted once; it is kept (per its persistence) only the first time.
    var isConfirmed = false

    /// Fails when the credential's kind cannot answer the space's method (a token for Basic, ...).
    init(offer: OfferedSpace, credential: Credential) throws(TransferError) {
        switch (offer.space.authenticationMethod, credential.kind) {
        case (.httpBasic, .password), (.httpDigest, .password), (.bearer, .bearer): break
        default:
            throw TransferError(
                .userAuthenticationRequired,
                "\(credential) cannot answer a \(offer.space.authenticationMethod.rawValue) challenge for \(offer.space)")
        }
        self.space = offer.space
        self.credential = credential
        self.digest = offer.digest
    }

    var fieldName: String { space.isProxy ? "Proxy-Authorization" : "Authorization" }

    /// Whether a request to `url` goes to this space: the same scheme, host and port for a server (never
    /// another host, whatever a redirect says); every plain-http request for a proxy. An https request
    /// through a proxy goes through a CONNECT tunnel, where the field would reach the origin server instead.
    func applies(to url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return false }
        if space.isProxy { return scheme == "http" }
        return scheme == space.scheme && host == space.host && Self.port(of: url) == space.port
    }

    /// The field's value for one request; counts the Digest nonce's use.
    mutating func fieldValue(for request: TransferRequest, url: URL) -> String {
        // A proxy sees the absolute URI as the request target; a server sees the path and query.
        fieldValue(method: request.method, uri: space.isProxy ? url.absoluteString : Self.requestTarget(of: url))
    }

    /// The `Proxy-Authorization` value for the CONNECT that opens a tunnel to `url`'s host and port:
    /// its request target is the authority (RFC 9110 §9.3.6).
    mutating func tunnelFieldValue(for url: URL) -> String {
        let host = url.host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ""
        return fieldValue(method: "CONNECT", uri: "\(host):\(Self.port(of: url))")
    }

    private mutating func fieldValue(method: String, uri: String) -> String {
        switch credential.kind {
        case .password(let user, let password):
            guard let digest else { return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }
            nonceCount += 1
            return digest.authorization(user: user, password: password, method: method, uri: uri,
                                        nonceCount: nonceCount, clientNonce: clientNonce)
        case .bearer(let token):
            return "Bearer \(token)"
        case .identity, .serverTrust:
            // Ruled out by init.
            return ""
        }
    }

    /// A stale Digest nonce (the credential was fine): answer the new one, counting from 1 again.
    mutating func renew(_ challenge: DigestChallenge) {
        digest = challenge
        nonceCount = 0
    }

    static func port(of url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    static func requestTarget(of url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "/" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }
}
