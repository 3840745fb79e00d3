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

    /// Associated data naming where a value sealed inside another table's row belongs: the column
    /// (`jobs.request`, `session_cookies.value`, ...), the row's id (which names its tenant too) and,
    /// where a row holds several, which item (a cookie's name, domain and path). A box copied to
    /// another row, column or item does not open there.
    public static func associatedData(column: String, row: UUID, item: String = "") -> Data {
        Data("ferry-vault:\(column):\(row.uuidString.lowercased()):\(item)".utf8)
    }

    /// `plaintext` sealed under the current key, or `sealed` itself when that key sealed it already:
    /// what start-up sealing and `rotate-vault-key` write.
    public func resealed(_ sealed: SealedSecret, associatedData: Data) throws -> SealedSecret {
        guard sealed.keyID != currentKeyID else { return sealed }
        return try seal(try open(sealed, associatedData: associatedData), associatedData: associatedData)
    }
}
