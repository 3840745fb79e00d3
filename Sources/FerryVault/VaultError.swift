/// Why the vault could not seal or open a secret. Messages never contain key or secret bytes.
public enum VaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Key text that is not base64 of exactly 32 bytes.
    case invalidKey
    /// No vault key is configured at all.
    case noKeys
    /// The row was sealed with a key that is not configured (any more).
    case unknownKey(id: String)
    /// The key is right but the row does not open: altered, or sealed for another tenant or row.
    case cannotOpen
    case keyFile(String)

    public var description: String {
        switch self {
        case .invalidKey: "a vault key must be the base64 text of 32 random bytes (openssl rand -base64 32)"
        case .noKeys: "no vault key is configured"
        case .unknownKey(let id): "the secret was sealed with vault key \(id), which is not configured"
        case .cannotOpen: "the secret does not open: it was altered, or it belongs to another row or tenant"
        case .keyFile(let message): message
        }
    }
}
