import Foundation

/// Which URLs a job may name: http, https, ftp and ftps; `file:` only where the operator enabled it.
/// The address check happens later, at connect time (`DestinationPolicy`).
public struct OutboundURLPolicy: Sendable {
    public var allowsFileURLs: Bool

    public init(allowsFileURLs: Bool = false) {
        self.allowsFileURLs = allowsFileURLs
    }

    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case notAbsolute
        case schemeNotAllowed(String)
        case missingHost
        case credentialsInURL

        public var description: String {
            switch self {
            case .notAbsolute: "the URL must be absolute, like https://example.com/file"
            case .schemeNotAllowed(let scheme): "the scheme '\(scheme)' is not allowed; use http, https, ftp or ftps"
            case .missingHost: "the URL has no host"
            case .credentialsInURL: "credentials in the URL are not accepted; they would be stored and logged with it"
            }
        }
    }

    public func check(_ url: URL) -> Refusal? {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else { return .notAbsolute }
        let allowed: Set<String> = allowsFileURLs ? ["http", "https", "ftp", "ftps", "file"] : ["http", "https", "ftp", "ftps"]
        guard allowed.contains(scheme) else { return .schemeNotAllowed(scheme) }
        if scheme == "file" { return nil }
        guard let host = url.host, !host.isEmpty else { return .missingHost }
        if url.user != nil || url.password != nil { return .credentialsInURL }
        return nil
    }
}
