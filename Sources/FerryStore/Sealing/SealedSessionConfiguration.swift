import FerryModel
import FerryVault
import Foundation

/// `sessions.configuration` with its secrets sealed, for the session (associated data:
/// `sessions.configuration` and its id): credential-bearing additional headers as in a job's request
/// (`SealedHeaderList`), and a proxy URL with a password whole, in `proxy_sealed`, while `proxy`
/// keeps the URL with the password replaced by `<redacted>` (what the session's view shows).
package enum SealedSessionConfiguration {
    package static let column = "sessions.configuration"
    static let headersKey = "additional_headers"
    static let proxyKey = "proxy"
    static let sealedProxyKey = "proxy_sealed"

    package static func associatedData(session: UUID) -> Data {
        VaultKeyring.associatedData(column: column, row: session)
    }

    /// The document to store for a new session, sealed before it reaches SQL.
    package static func json(_ settings: SessionSettings, session: UUID, keyring: VaultKeyring) throws -> String {
        let plain = JobSpecification.json(settings)
        guard settings.additionalHeaders.contains(where: { CredentialHeaders.carriesCredentials($0.name) })
                || settings.proxy.map(hasPassword) == true
        else { return plain }
        return try resealed(plain, session: session, keyring: keyring) ?? plain
    }

    /// The stored document with every secret sealed under the current key; nil when it already was.
    package static func resealed(_ stored: String, session: UUID, keyring: VaultKeyring) throws -> String? {
        var document = try SealedJSONDocument.object(stored)
        let associatedData = associatedData(session: session)
        var changed = false
        if var headers = document[headersKey] as? [Any], try SealedHeaderList.seal(&headers, keyring: keyring, associatedData: associatedData) {
            document[headersKey] = headers
            changed = true
        }
        if let existing = SealedSecret(jsonObject: document[sealedProxyKey]) {
            let sealed = try keyring.resealed(existing, associatedData: associatedData)
            if sealed != existing {
                document[sealedProxyKey] = sealed.jsonObject
                changed = true
            }
        } else if let proxy = document[proxyKey] as? String, hasPassword(proxy) {
            document[sealedProxyKey] = try keyring.seal(Data(proxy.utf8), associatedData: associatedData).jsonObject
            document[proxyKey] = redactedProxy(proxy)
            changed = true
        }
        return changed ? try SealedJSONDocument.text(document) : nil
    }

    private struct StoredSecrets: Decodable {
        var additional_headers: [SealedHeaderList.Stored]?
        var proxy_sealed: SealedSecret?
    }

    /// The settings as `reading` asks: secrets opened, or left redacted.
    package static func decode(_ stored: String, session: UUID, reading: SecretReading) throws -> SessionSettings {
        var settings = try JobSpecification.decode(SessionSettings.self, json: stored)
        guard case .open(let keyring) = reading, SealedJSONDocument.mayHoldSealedValues(stored) else { return settings }
        let secrets = try JobSpecification.decode(StoredSecrets.self, json: stored)
        let associatedData = associatedData(session: session)
        for (index, value) in try SealedHeaderList.openedValues(secrets.additional_headers ?? [], keyring: keyring, associatedData: associatedData)
        where settings.additionalHeaders.indices.contains(index) {
            settings.additionalHeaders[index].value = value
        }
        if let proxy = secrets.proxy_sealed {
            settings.proxy = String(decoding: try keyring.open(proxy, associatedData: associatedData), as: UTF8.self)
        }
        return settings
    }

    static func hasPassword(_ proxy: String) -> Bool {
        if let components = URLComponents(string: proxy) { return components.password != nil }
        // Not a URL Foundation parses: sealed whenever its authority could hold `user:password@`.
        guard let scheme = proxy.range(of: "://") else { return false }
        let authority = proxy[scheme.upperBound...].prefix { $0 != "/" }
        return authority.contains("@")
    }

    /// The proxy URL with `<redacted>` for its password, as the session's view has always shown it
    /// (`SessionView.redactedProxy`, which leaves this text as it is).
    static func redactedProxy(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = CredentialHeaders.placeholder
        return components.string ?? CredentialHeaders.placeholder
    }
}
