import Crypto
import Foundation
import NIOHTTP1

/// `/protected/...`: a resource behind Basic, Digest (RFC 7616) and Bearer authentication, checked with
/// swift-crypto, independently of the engine's own MD5 and SHA-256.
///
/// `/protected/{anything}?schemes=basic,digest,bearer&algorithm=SHA-256|MD5|both&stale=1&combined=1&redirect=URL`
/// - `schemes`: the challenges offered, in this order (default `basic`).
/// - `algorithm`: Digest's (default SHA-256); `both` offers MD5 first, then SHA-256.
/// - `stale=1`: the nonces of the first challenges are stale: a correct answer to one gets another 401
///   with `stale=true` and a fresh nonce.
/// - `combined=1`: all challenges in one `WWW-Authenticate` field, else one field each.
/// - `redirect=URL`: once authenticated, 302 to URL instead of the report.
///
/// A request carrying a correct `Authorization` for an offered scheme gets the `/echo` report (its
/// headers, body length and fingerprint); anything else gets 401 "authentication required".
public enum AuthRoutes {
    public static let user = "ferry"
    /// With a colon and a space: Basic splits user and password at the first colon only.
    public static let password = "s3cret: pass"
    public static let token = "ferry-token-7"
    public static let basicRealm = "ferry-basic"
    public static let digestRealm = "ferry-digest@example.org"
    public static let bearerRealm = "ferry-api"

    @Sendable
    static func protected(_ request: OriginRequest, _ response: OriginResponder) async throws {
        let schemes = (request.query["schemes"] ?? "basic").split(separator: ",").map { $0.lowercased() }
        let algorithms: [String] =
            switch request.query["algorithm"] ?? "SHA-256" {
            case "both": ["MD5", "SHA-256"]
            case let one: [one]
            }
        let authorization = request.header("authorization") ?? ""
        var staleAnswer = false
        if schemes.contains("basic"), acceptsBasic(authorization) {
            try await succeed(request, response)
            return
        }
        if schemes.contains("bearer"), authorization == "Bearer \(token)" {
            try await succeed(request, response)
            return
        }
        if schemes.contains("digest"), let nonce = acceptedDigestNonce(authorization, request: request, algorithms: algorithms) {
            guard nonce.hasPrefix("stale-") else {
                try await succeed(request, response)
                return
            }
            staleAnswer = true
        }
        let noncePrefix = request.query["stale"] == "1" && !staleAnswer ? "stale-" : "fresh-"
        var challenges: [String] = []
        for scheme in schemes {
            switch scheme {
            case "basic": challenges.append("Basic realm=\"\(basicRealm)\", charset=\"UTF-8\"")
            case "bearer": challenges.append("Bearer realm=\"\(bearerRealm)\", scope=\"files, jobs\"")
            case "digest":
                for algorithm in algorithms {
                    let nonce = noncePrefix + UUID().uuidString
                    challenges.append(
                        "Digest realm=\"\(digestRealm)\", qop=\"auth, auth-int\", algorithm=\(algorithm), "
                            + "nonce=\"\(nonce)\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
                            + (staleAnswer ? ", stale=true" : ""))
                }
            default: continue
            }
        }
        var headers = HTTPHeaders()
        if request.query["combined"] == "1" {
            headers.add(name: "WWW-Authenticate", value: challenges.joined(separator: ", "))
        } else {
            for challenge in challenges { headers.add(name: "WWW-Authenticate", value: challenge) }
        }
        try await response.send(.unauthorized, text: "authentication required", headers: headers)
    }

    private static func succeed(_ request: OriginRequest, _ response: OriginResponder) async throws {
        if let location = request.query["redirect"] {
            try await response.send(.found, headers: ["location": location])
        } else {
            try await response.send(
                .ok, contentType: "application/json", text: EchoRoutes.report(of: request, includingBody: true).rendered + "\n")
        }
    }

    private static func acceptsBasic(_ authorization: String) -> Bool {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let decoded = Data(base64Encoded: String(parts[1])) else {
            return false
        }
        return String(decoding: decoded, as: UTF8.self) == "\(user):\(password)"
    }

    /// The nonce of a correct Digest answer (qop=auth, one of `algorithms`), or nil.
    private static func acceptedDigestNonce(_ authorization: String, request: OriginRequest, algorithms: [String]) -> String? {
        guard authorization.lowercased().hasPrefix("digest ") else { return nil }
        let fields = DigestFields.parse(String(authorization.dropFirst("digest ".count)))
        guard fields["username"] == user, fields["realm"] == digestRealm, fields["uri"] == request.head.uri,
            fields["qop"] == "auth", let nonce = fields["nonce"], nonce.hasPrefix("stale-") || nonce.hasPrefix("fresh-"),
            let count = fields["nc"], count.count == 8, let countValue = UInt32(count, radix: 16), countValue > 0,
            let clientNonce = fields["cnonce"], !clientNonce.isEmpty,
            let algorithm = fields["algorithm"], algorithms.contains(algorithm)
        else { return nil }
        func hash(_ text: String) -> String {
            let bytes: [UInt8] =
                algorithm == "MD5" ? Array(Insecure.MD5.hash(data: Data(text.utf8))) : Array(SHA256.hash(data: Data(text.utf8)))
            return bytes.map { String(format: "%02x", $0) }.joined()
        }
        let secret = hash("\(user):\(digestRealm):\(password)")
        let target = hash("\(request.method):\(request.head.uri)")
        let expected = hash("\(secret):\(nonce):\(count):\(clientNonce):auth:\(target)")
        return fields["response"] == expected ? nonce : nil
    }
}

/// The `name=value` / `name="value"` list of a Digest `Authorization` field.
enum DigestFields {
    static func parse(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = Substring(text)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let character = rest.first, character != "\"" {
                    if character == "\\" { rest = rest.dropFirst() }
                    if let next = rest.first { value.append(next) }
                    rest = rest.dropFirst()
                }
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            fields[name] = value
        }
        return fields
    }
}
