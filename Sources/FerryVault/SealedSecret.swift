import Foundation

/// A secret as the vault stores it: which key sealed it, and the AES-GCM nonce, ciphertext and tag
/// in one value (`nonce | ciphertext | tag`, swift-crypto's combined form).
public struct SealedSecret: Sendable, Equatable {
    /// `VaultKey.id` of the key that sealed it: which of the configured keys opens it.
    public var keyID: String
    public var combined: Data

    public init(keyID: String, combined: Data) {
        self.keyID = keyID
        self.combined = combined
    }
}
