import FerryVault
import Foundation

/// A session cookie's value, sealed for its place: the session (which names the tenant) and the
/// cookie's identity (name, domain, path), so a value copied to another cookie does not open.
package enum SealedCookieValue {
    package static let column = "session_cookies.value"

    static func associatedData(session: UUID, name: String, domain: String, path: String) -> Data {
        // Cookie names, domains and paths hold no control characters (RFC 6265 §5.2), so a newline separates them.
        VaultKeyring.associatedData(column: column, row: session, item: "\(name)\n\(domain)\n\(path)")
    }

    package static func seal(
        _ value: String, session: UUID, name: String, domain: String, path: String, keyring: VaultKeyring
    ) throws -> SealedSecret {
        try keyring.seal(Data(value.utf8), associatedData: associatedData(session: session, name: name, domain: domain, path: path))
    }

    package static func open(
        _ sealed: SealedSecret, session: UUID, name: String, domain: String, path: String, keyring: VaultKeyring
    ) throws -> String {
        String(decoding: try keyring.open(sealed, associatedData: associatedData(session: session, name: name, domain: domain, path: path)),
               as: UTF8.self)
    }
}
