import Crypto
import Foundation

/// One AES-256 key of the vault, read from its base64 text (32 random bytes; `openssl rand -base64 32`).
public struct VaultKey: Sendable {
    /// The first 16 hex digits of the key's SHA-256: names the key in each sealed row without
    /// revealing anything of it, and stays the same wherever the key is configured.
    public let id: String
    package let key: SymmetricKey

    public init(base64 text: String) throws(VaultError) {
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
            throw VaultError.invalidKey
        }
        key = SymmetricKey(data: bytes)
        id = SHA256.hash(data: bytes).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// A new random key, as base64 text.
    public static func generateText() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }
}
