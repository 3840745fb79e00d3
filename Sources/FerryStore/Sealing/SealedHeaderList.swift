import FerryVault
import Foundation

/// A header list inside a stored JSON document (`[{"name", "value"}]`), with each credential-bearing
/// value sealed: `{"name": "Authorization", "value": "<redacted>", "sealed": {"key_id", "box"}}`.
///
/// The placeholder keeps the document readable by the model's own decoder (a view needs nothing
/// else); the worker's read puts the opened values back (`opened`).
enum SealedHeaderList {
    /// One stored header, as the worker's read decodes it.
    struct Stored: Decodable {
        var name: String
        var value: String?
        var sealed: SealedSecret?
    }

    /// Seals, in place, every credential-bearing value of `headers` (a `JSONSerialization` array)
    /// that is not sealed under the keyring's current key: plain ones (new, or stored before sealing
    /// existed) and ones under an older key (rotation). True when anything changed.
    static func seal(_ headers: inout [Any], keyring: VaultKeyring, associatedData: Data) throws -> Bool {
        var changed = false
        for index in headers.indices {
            guard var header = headers[index] as? [String: Any], let name = header["name"] as? String,
                  CredentialHeaders.carriesCredentials(name)
            else { continue }
            let sealed: SealedSecret
            if let existing = SealedSecret(jsonObject: header["sealed"]) {
                sealed = try keyring.resealed(existing, associatedData: associatedData)
                if sealed == existing { continue }
            } else {
                guard let value = header["value"] as? String else { continue }
                sealed = try keyring.seal(Data(value.utf8), associatedData: associatedData)
            }
            header["value"] = CredentialHeaders.placeholder
            header["sealed"] = sealed.jsonObject
            headers[index] = header
            changed = true
        }
        return changed
    }

    /// The opened value of each sealed header of `stored`, by position; plain ones are not listed.
    static func openedValues(_ stored: [Stored], keyring: VaultKeyring, associatedData: Data) throws -> [Int: String] {
        var values: [Int: String] = [:]
        for (index, header) in stored.enumerated() {
            guard let sealed = header.sealed else { continue }
            values[index] = String(decoding: try keyring.open(sealed, associatedData: associatedData), as: UTF8.self)
        }
        return values
    }
}
