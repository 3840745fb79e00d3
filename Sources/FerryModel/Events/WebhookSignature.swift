import Crypto
import Foundation

/// Standard Webhooks signing: secrets are `whsec_` followed by base64 of random bytes, and a
/// delivery's `webhook-signature` is `v1,` + base64(HMAC-SHA256(secret bytes, "id.timestamp.body")),
/// one such entry per valid secret, separated by spaces (both secrets during a rotation).
public enum WebhookSignature {
    package static let prefix = "whsec_"

    /// A new secret of 32 random bytes (the specification asks for 24 to 64).
    public static func newSecret() -> Secret {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Secret(prefix + Data(bytes).base64EncodedString())
    }

    /// The `webhook-signature` header for `body` sent as message `id` at `timestamp` (Unix seconds).
    /// A secret that is not `whsec_<base64>` signs nothing (they are all made by `newSecret`).
    public static func header(id: String, timestamp: Int64, body: Data, secrets: [Secret]) -> String {
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        return secrets.compactMap { secret -> String? in
            guard secret.revealed.hasPrefix(prefix), let key = Data(base64Encoded: String(secret.revealed.dropFirst(prefix.count))) else {
                return nil
            }
            let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))
            return "v1," + Data(mac).base64EncodedString()
        }.joined(separator: " ")
    }
}
