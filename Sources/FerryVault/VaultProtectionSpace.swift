import Foundation
import URLLoading

/// The protection space a stored credential answers (AU-01, AU-04): scheme, host, port, method and
/// an optional realm. Without a realm it answers every realm of the server for that method.
package struct VaultProtectionSpace: Sendable, Equatable {
    package enum Method: String, Sendable, CaseIterable {
        case basic, digest, bearer
        case clientCertificate = "client_certificate"
        case serverTrust = "server_trust"

        package var engineMethod: AuthenticationMethod {
            switch self {
            case .basic: .httpBasic
            case .digest: .httpDigest
            case .bearer: .bearer
            case .clientCertificate: .clientCertificate
            case .serverTrust: .serverTrust
            }
        }

        /// Answered in the TLS handshake rather than after a 401.
        package var isConnectionLevel: Bool { self == .clientCertificate || self == .serverTrust }
    }

    package var scheme: String
    package var host: String
    package var port: Int
    package var realm: String?
    package var method: Method

    package static func defaultPort(of scheme: String) -> Int? {
        ["http": 80, "https": 443, "ftp": 21, "ftps": 990][scheme]
    }

    /// Whether the engine's space (a server's, never a proxy's) is this one.
    package func matches(_ space: ProtectionSpace) -> Bool {
        !space.isProxy && space.scheme == scheme && space.host == host && space.port == port
            && space.authenticationMethod == method.engineMethod && (realm == nil || realm == space.realm)
    }

    package var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)\(realm.map { " realm \"\($0)\"" } ?? "") (\(method.rawValue))"
    }

    package init(scheme: String, host: String, port: Int, realm: String? = nil, method: Method) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.realm = realm
        self.method = method
    }
}
