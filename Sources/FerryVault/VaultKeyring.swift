import Crypto
import Foundation

/// The vault's keys: the newest seals, every one opens (so keys can be rotated without a pause:
/// configure the new key first, then re-seal with `ferryd admin rotate-vault-key`, then drop the old).
///
/// Each secret is sealed with AES-256-GCM under a fresh random nonce, authenticating associated
/// data that names where the secret belongs (its tenant and row): a ciphertext copied into
/// another tenant's row, or another row, fails to open instead of revealing anything.
public struct VaultKeyring: Sendable {
    /// Newest first.
    public let keys: [VaultKey]

    public init(keys: [VaultKey]) throws(VaultError) {
        guard !keys.isEmpty else { throw VaultError.noKeys }
        self.keys = keys
    }

    /// The key new secrets are sealed with.
    public var currentKeyID: String { keys[0].id }

    public func seal(_ plaintext: Data, associatedData: Data) throws -> SealedSecret {
        let box = try AES.GCM.seal(plaintext, using: keys[0].key, nonce: AES.GCM.Nonce(), authenticating: associatedData)
        guard let combined = box.combined else { throw VaultError.cannotOpen }
        return SealedSecret(keyID: keys[0].id, combined: combined)
    }

    public func open(_ sealed: SealedSecret, associatedData: Data) throws -> Data {
        guard let key = keys.first(where: { $0.id == sealed.keyID }) else { throw VaultError.unknownKey(id: sealed.keyID) }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed.combined), using: key.key, authenticating: associatedData)
        } catch {
            throw VaultError.cannotOpen
        }
    }

    /// Associated data naming a secret's place: its tenant and its row, so it opens nowhere else.
    public static func associatedData(tenant: UUID, row: UUID) -> Data {
        Data("ferry-vault:\(tenant.uuidString.lowercased()):\(row.uuidString.lowercased())".utf8)
    }
}
