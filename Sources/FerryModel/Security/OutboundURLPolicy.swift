import Foundation
import URLLoading

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
        case portOutOfRange(String)

        public var description: String {
            switch self {
            case .notAbsolute: "the URL must be absolute, like https://example.com/file"
            case .schemeNotAllowed(let scheme): "the scheme '\(scheme)' is not allowed; use http, https, ftp or ftps"
            case .missingHost: "the URL has no host"
            case .credentialsInURL: "credentials in the URL are not accepted; they would be stored and logged with it"
            case .portOutOfRange(let port): "the port \(port) is not a TCP port: ports are 1 to 65535"
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
        // Otherwise accepted here and refused by curl at every attempt ("the URL is malformed").
        if let port = WrittenPort.of(url.absoluteString), !port.isEmpty, !WrittenPort.isTCPPort(port) {
            return .portOutOfRange(String(port))
        }
        return nil
    }
}
