import FerryModel
import Foundation
import PostgresNIO

/// Where an external PostgreSQL server is: `postgres://user:password@host:port/database?sslmode=disable`.
///
/// Parsed with the meanings libpq gives these URLs, so a URL that works with `psql` works here:
/// the port defaults to 5432, `sslmode` defaults to `prefer`, and `?host=/some/dir` connects through
/// the Unix socket in that directory. The password is a `Secret`; `description` shows the URL with it
/// redacted, and no error message ever repeats the URL as given.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode` values that can be honoured (`allow` cannot: it would try plain text first).
    public enum TLSMode: String, Sendable, CaseIterable {
        case disable
        case prefer
        case require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public let user: String
    public let password: Secret?
    /// The server's host name or address; empty when `socketDirectory` is used.
    public let host: String
    public let port: Int
    /// Nil: the server's default, which is a database named like the user.
    public let database: String?
    public let tlsMode: TLSMode
    /// Set by `?host=/path`: connect through `<path>/.s.PGSQL.<port>` instead of TCP.
    public let socketDirectory: String?

    public init(
        user: String, password: Secret?, host: String, port: Int = 5432, database: String?,
        tlsMode: TLSMode = .prefer, socketDirectory: String? = nil
    ) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.tlsMode = tlsMode
        self.socketDirectory = socketDirectory
    }

    /// - Parameter origin: what to call the value in error messages ("FERRY_DATABASE_URL", "--database-url").
    public init(parsing text: String, origin: String = "FERRY_DATABASE_URL") throws(GatewayConfigurationError) {
        let shape = "postgres://user:password@host:port/database"
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw GatewayConfigurationError("\(origin) is not a URL of the form \(shape)")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw GatewayConfigurationError("\(origin) must start with postgres:// or postgresql://, got '\(scheme)://'")
        }
        guard let user = components.user, !user.isEmpty else {
            throw GatewayConfigurationError("\(origin) must name a user (\(shape))")
        }

        var tlsMode = TLSMode.prefer
        var socketDirectory: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let mode = TLSMode(rawValue: value) else {
                    let accepted = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw GatewayConfigurationError(
                        "\(origin) has sslmode='\(item.value ?? "")'; accepted values are \(accepted)")
                }
                tlsMode = mode
            case "host":
                guard let value = item.value, value.hasPrefix("/") else {
                    throw GatewayConfigurationError(
                        "\(origin) has host='\(item.value ?? "")'; as a parameter, host must be a socket directory starting with /")
                }
                socketDirectory = value
            default:
                throw GatewayConfigurationError(
                    "\(origin) has an unsupported parameter '\(item.name)' (supported: sslmode, host)")
            }
        }

        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        guard !host.isEmpty || socketDirectory != nil else {
            throw GatewayConfigurationError("\(origin) must name a host (\(shape))")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            throw GatewayConfigurationError("\(origin) has port \(port); it must be from 1 to 65535")
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.contains("/") else {
            throw GatewayConfigurationError("\(origin) has the path '/\(path)'; it must be a single database name")
        }

        self.init(
            user: user,
            password: components.password.map(Secret.init),
            host: host,
            port: port,
            database: path.isEmpty ? nil : path,
            tlsMode: tlsMode,
            socketDirectory: socketDirectory
        )
    }

    /// How PostgresNIO connects to this server.
    public var clientConfiguration: PostgresClient.Configuration {
        clientConfiguration(database: database)
    }

    /// The same server and credentials, another database (tests create one per test).
    public func clientConfiguration(database: String?) -> PostgresClient.Configuration {
        if let socketDirectory {
            return PostgresClient.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)",
                username: user, password: password?.revealed, database: database)
        }
        return PostgresClient.Configuration(
            host: host, port: port, username: user, password: password?.revealed, database: database, tls: tls.client)
    }

    /// The same, for a single `PostgresConnection` (one-shot work that should fail at once when
    /// the server cannot be reached). Throws when the TLS settings cannot be turned into a context.
    public func connectionConfiguration(database: String?) throws -> PostgresConnection.Configuration {
        if let socketDirectory {
            return PostgresConnection.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)",
                username: user, password: password?.revealed, database: database)
        }
        let connectionTLS: PostgresConnection.Configuration.TLS
        switch tls.mode {
        case .disable: connectionTLS = .disable
        case .prefer(let configuration): connectionTLS = .prefer(try NIOSSLContext(configuration: configuration))
        case .require(let configuration): connectionTLS = .require(try NIOSSLContext(configuration: configuration))
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password?.revealed, database: database, tls: connectionTLS)
    }

    /// libpq's meanings: `prefer` and `require` encrypt without checking the certificate,
    /// `verify-ca` checks the chain, `verify-full` also the host name.
    private var tls: (mode: TLSUse, client: PostgresClient.Configuration.TLS) {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch tlsMode {
        case .disable:
            return (.disable, .disable)
        case .prefer:
            configuration.certificateVerification = .none
            return (.prefer(configuration), .prefer(configuration))
        case .require:
            configuration.certificateVerification = .none
            return (.require(configuration), .require(configuration))
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
            return (.require(configuration), .require(configuration))
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
            return (.require(configuration), .require(configuration))
        }
    }

    /// Whether and how to use TLS, before it becomes one of PostgresNIO's two TLS types.
    private enum TLSUse {
        case disable
        case prefer(TLSConfiguration)
        case require(TLSConfiguration)
    }

    public var description: String {
        let credentials = password == nil ? user : "\(user):<redacted>"
        let hostPart = host.contains(":") ? "[\(host)]" : host
        var parameters = ["sslmode=\(tlsMode.rawValue)"]
        if let socketDirectory {
            parameters.append("host=\(socketDirectory)")
        }
        return "postgres://\(credentials)@\(hostPart):\(port)/\(database ?? "")?\(parameters.joined(separator: "&"))"
    }
}
