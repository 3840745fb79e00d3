import Foundation

/// A Digest challenge (RFC 7616) and the `Authorization` values that answer it: MD5 and SHA-256, their
/// `-sess` variants, `qop=auth` (or no qop, RFC 2069 style), counted nonces.
///
/// Computed by the engine rather than by libcurl (CURLAUTH_DIGEST) on purpose: curl only answers a
/// Digest challenge it received itself on the same handle, so every retry would first go out without
/// credentials, come back as a second 401 that the header callback would have to hide, and rewind the
/// upload body once more, which a stream body cannot do. Here the challenge the delegate answered is
/// answered directly in one request, and a stale nonce is handled under the same failure counting as
/// Basic (AU-19).
struct DigestChallenge: Sendable, Equatable {
    enum Algorithm: String, Sendable {
        case md5 = "MD5"
        case md5Session = "MD5-sess"
        case sha256 = "SHA-256"
        case sha256Session = "SHA-256-sess"

        func hash(_ text: String) -> String {
            switch self {
            case .md5, .md5Session: return MD5.hex(text)
            case .sha256, .sha256Session:
                var hasher = SHA256Hasher()
                hasher.update(text.utf8)
                return hasher.finalizeHex()
            }
        }

        var isSession: Bool { self == .md5Session || self == .sha256Session }
        /// SHA-256 is preferred when a server offers both (RFC 7616 §3.7).
        var strength: Int { self == .sha256 || self == .sha256Session ? 1 : 0 }
    }

    var realm: String
    var nonce: String
    var opaque: String?
    var algorithm: Algorithm
    /// "auth", or nil when the server offered no qop (RFC 2069 compatibility).
    var qop: String?
    /// The server says the nonce expired but the credential was right: answer the new nonce, no failure.
    var isStale: Bool

    /// Nil for a challenge the engine cannot answer: no nonce, an unknown algorithm, or only `auth-int`.
    init?(_ challenge: ParsedChallenge) {
        guard challenge.scheme == "digest", let nonce = challenge.parameters["nonce"] else { return nil }
        let name = challenge.parameters["algorithm"] ?? "MD5"
        guard let algorithm = [Algorithm.md5, .md5Session, .sha256, .sha256Session].first(where: {
            $0.rawValue.caseInsensitiveCompare(name) == .orderedSame
        }) else { return nil }
        if let offered = challenge.parameters["qop"] {
            let options = offered.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard options.contains("auth") else { return nil }
            qop = "auth"
        } else {
            qop = nil
        }
        self.realm = challenge.realm ?? ""
        self.nonce = nonce
        self.opaque = challenge.parameters["opaque"]
        self.algorithm = algorithm
        self.isStale = challenge.parameters["stale"]?.lowercased() == "true"
    }

    /// The `Digest ...` value for one request; `nonceCount` counts the requests sent with this nonce.
    func authorization(user: String, password: String, method: String, uri: String, nonceCount: Int,
                       clientNonce: String) -> String {
        let count = String(format: "%08x", nonceCount)
        var secret = algorithm.hash("\(user):\(realm):\(password)")
        if algorithm.isSession { secret = algorithm.hash("\(secret):\(nonce):\(clientNonce)") }
        let request = algorithm.hash("\(method.uppercased()):\(uri)")
        let response: String
        if let qop {
            response = algorithm.hash("\(secret):\(nonce):\(count):\(clientNonce):\(qop):\(request)")
        } else {
            response = algorithm.hash("\(secret):\(nonce):\(request)")
        }
        var fields = [
            "username=\(Self.quoted(user))", "realm=\(Self.quoted(realm))", "nonce=\(Self.quoted(nonce))",
            "uri=\(Self.quoted(uri))", "algorithm=\(algorithm.rawValue)", "response=\"\(response)\"",
        ]
        if let qop { fields += ["qop=\(qop)", "nc=\(count)", "cnonce=\(Self.quoted(clientNonce))"] }
        if let opaque { fields.append("opaque=\(Self.quoted(opaque))") }
        return "Digest " + fields.joined(separator: ", ")
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
