import CoreMetrics
import Foundation

/// How a session behaves (SES-01..SES-29). A value type: a session copies it when it is created, so
/// changing a configuration afterwards only affects sessions created later (SES-11, SES-12, SES-14).
public struct SessionConfiguration: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// Persistent storage allowed (SES-02).
        case `default`
        /// Nothing written to disk; storage lives and dies with the session (SES-03).
        case ephemeral
    }

    public enum TLSVersion: String, Sendable, Equatable, Comparable {
        case tls10 = "1.0", tls11 = "1.1", tls12 = "1.2", tls13 = "1.3"

        private var rank: Int {
            switch self {
            case .tls10: 0
            case .tls11: 1
            case .tls12: 2
            case .tls13: 3
            }
        }
        public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.rank < rhs.rank }
    }

    public struct Proxy: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable {
            case http
            /// SOCKS5 with host names resolved by the proxy (socks5h).
            case socks5
        }
        public var kind: Kind
        public var host: String
        public var port: Int
        public var username: String?
        public var password: String?

        public init(kind: Kind, host: String, port: Int, username: String? = nil, password: String? = nil) {
            self.kind = kind
            self.host = host
            self.port = port
            self.username = username
            self.password = password
        }

        /// Parses `http://[user:pass@]host:port`, `socks5://...` or `socks5h://...`; a bare
        /// `host:port` means an HTTP proxy.
        public init?(url string: String) {
            let withScheme = string.contains("://") ? string : "http://" + string
            guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty
            else { return nil }
            if let written = WrittenPort.of(withScheme), !written.isEmpty, !WrittenPort.isTCPPort(written) { return nil }
            switch components.scheme?.lowercased() {
            case "http": kind = .http
            case "socks5", "socks5h": kind = .socks5
            default: return nil
            }
            // URLComponents keeps an IPv6 literal's brackets; `host` is the bare address, and the
            // curl side brackets it again when it writes the proxy URL.
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            self.port = components.port ?? 1080
            username = components.user?.removingPercentEncoding
            password = components.password?.removingPercentEncoding
        }
    }

    public private(set) var kind: Kind

    /// Set for a background configuration (`background(identifier:store:)`, SES-04); nil otherwise.
    /// Its settings may be changed (`configuration.background?.retry = ...`); only that factory makes one.
    public var background: Background?

    /// Idle timeout: the longest time a request may go without any bytes moving (LC-22). Default 60 s.
    public var requestTimeout: TimeInterval = 60
    /// Total time a resource may take, from start to the last byte (SES-19). Default 7 days.
    public var resourceTimeout: TimeInterval = 7 * 24 * 3600
    /// Time allowed to establish a connection (TCP and TLS). Nil: bounded by `requestTimeout`.
    public var connectTimeout: TimeInterval?
    /// At most this many transfers to one host run at once; the rest wait, highest priority first (SES-18).
    public var maximumConnectionsPerHost: Int = 6
    /// Headers added to every request unless the request sets the same field itself.
    public var additionalHeaders: HTTPHeaders = [:]
    /// TLS version bounds (SES-20, TLS-12). Nil: libcurl's defaults.
    public var tlsMinimumVersion: TLSVersion?
    public var tlsMaximumVersion: TLSVersion?
    /// Extra certificate authorities (PEM) trusted in addition to the system store.
    public var additionalTrustedCAsPEM: String?
    /// Certificate authorities trusted for particular hosts only, in addition to the system store and
    /// `additionalTrustedCAsPEM`, e.g. a private CA of one internal server (TLS-02).
    public var hostTrustedCAs: [HostTrustedCA] = []
    /// SHA-256 public-key pins, `sha256//BASE64` as curl writes them (see `PublicKeyPin`): the server's
    /// leaf key must be one of them. A pin only tightens trust, the chain must still be trusted (TLS-08, TLS-09).
    public var pinnedPublicKeys: [String] = []
    /// Public-key pins for particular hosts, on top of `pinnedPublicKeys` (TLS-08, TLS-09): a session
    /// reaching many hosts pins each server's key without pinning the others to it.
    public var hostPinnedPublicKeys: [HostPinnedPublicKeys] = []
    /// Certificates trusted for one host each whatever the trust store says, e.g. a self-signed server (TLS-03).
    public var trustedServerCertificates: [TrustedServerCertificate] = []
    /// The client certificate presented when a server asks for one (TLS-11). Nil: a server's request
    /// becomes a client-certificate challenge for the delegate, or the handshake goes on without one.
    public var clientIdentity: ClientIdentity?
    /// Client certificates for particular hosts, used where `clientIdentity` is nil (TLS-11).
    public var hostClientIdentities: [HostClientIdentity] = []
    /// Accept any server certificate, unchecked (`ferry get -k`). Nothing else ever skips server trust
    /// evaluation; pins are still checked, as curl does.
    public var skipsServerTrustEvaluation = false
    /// Proxy for every request (SES-21, PR-02, PR-03). Nil: direct connections (environment proxy
    /// variables are ignored, so a session behaves the same wherever it runs).
    public var proxy: Proxy?
    /// Offer HTTP/2 over ALPN on https (and use HTTP/2 multiplexing). Off: HTTP/1.1 only.
    public var httpVersion2Enabled: Bool = true
    /// HTTP/1.1 pipelining is obsolete and unsupported by libcurl; this controls HTTP/2 multiplexing
    /// of several requests over one connection (SES-23).
    public var httpShouldUsePipelining: Bool = true
    /// How many redirects a task follows before failing with `tooManyRedirects` (RD-04).
    public var maximumRedirects: Int = 16
    /// Data and upload tasks send `Accept-Encoding` and decode gzip, deflate, br and zstd bodies
    /// transparently. Download tasks do not follow it: they ask for the server's bytes unless the task
    /// opts in (`DownloadTask.acceptsCompressedContent`), since a decoded body cannot be resumed.
    public var acceptsCompressedContent: Bool = true
    /// Which resolved addresses transfers may connect to; nil allows all (see `ConnectionPolicy`).
    public var connectionPolicy: ConnectionPolicy?
    /// Loops that run this session's transfers. Nil: the process-wide shared group.
    public var loopGroup: CurlLoopGroup?
    /// Where default handling of a challenge finds credentials, and where `.permanent` ones that worked
    /// are kept (AU-01, AU-14). Default configurations share `InMemoryCredentialStorage.shared`; an
    /// ephemeral one gets a storage of its own without a persistence hook (SES-03).
    public var credentialStorage: any CredentialStorage {
        get { storage.storage }
        set { storage = CredentialStorageReference(storage: newValue) }
    }
    private var storage: CredentialStorageReference
    /// Where the session's transfers record their requests, connections and phase times
    /// (`EngineMetricName`). Nil: the process's `MetricsSystem.factory` when the session is made.
    public var metricsFactory: (any MetricsFactory)? {
        get { metrics?.factory }
        set { metrics = newValue.map(MetricsFactoryReference.init(factory:)) }
    }
    private var metrics: MetricsFactoryReference?
    /// A task gives up on a protection space, failing with `userAuthenticationRequired`, once it
    /// rejected this many credentials (AU-19, AU-20).
    public var maximumAuthenticationFailures: Int = 5

    /// Where cookies are kept (CK-04, CK-09, SES-15). Nil: `InMemoryCookieStorage.shared` for default
    /// sessions, a private in-memory storage for each ephemeral session (SES-03). A session reports
    /// the storage it uses in its own `configuration`.
    public var httpCookieStorage: (any CookieStorage)? {
        get { cookieStorageReference?.value }
        set { cookieStorageReference = newValue.map { ObjectReference($0, identity: $0) } }
    }
    private var cookieStorageReference: ObjectReference<any CookieStorage>?
    /// Which response cookies this session accepts (CK-05, SES-22). Nil: the storage's own policy.
    public var httpCookieAcceptPolicy: CookieAcceptPolicy?
    /// False: no session request sends or stores cookies, whatever the request says (CK-02).
    public var httpShouldSetCookies: Bool = true

    /// The HTTP cache (CA-03, SES-27). Nil: no caching; `returnCacheDataDontLoad` then always fails.
    /// Ephemeral sessions store in its memory only, never on disk (CA-24, SES-03).
    public var urlCache: (any ResponseCache)? {
        get { urlCacheReference?.value }
        set { urlCacheReference = newValue.map { ObjectReference($0, identity: $0) } }
    }
    private var urlCacheReference: ObjectReference<any ResponseCache>?
    /// The cache policy of requests that name none (SES-26, CA-05).
    public var requestCachePolicy: RequestCachePolicy = .useProtocolCachePolicy

    /// Custom protocols of this session's tasks (PR-08), asked in this order before the ones
    /// registered for the whole process and before the built-in schemes (PR-04).
    public var protocolClasses: [any TransferProtocol.Type] {
        get { protocolTypes.types }
        set { protocolTypes = ProtocolTypeList(types: newValue) }
    }
    private var protocolTypes = ProtocolTypeList(types: [])

    private init(kind: Kind, credentialStorage: any CredentialStorage) {
        self.kind = kind
        self.storage = CredentialStorageReference(storage: credentialStorage)
    }

    public static var `default`: SessionConfiguration {
        SessionConfiguration(kind: .default, credentialStorage: InMemoryCredentialStorage.shared)
    }
    public static var ephemeral: SessionConfiguration {
        SessionConfiguration(kind: .ephemeral, credentialStorage: InMemoryCredentialStorage())
    }

    /// Checks values that would make transfers misbehave; a session refuses such a configuration.
    func validate() throws(ConfigurationError) {
        guard requestTimeout > 0 else { throw ConfigurationError("requestTimeout must be positive") }
        guard resourceTimeout > 0 else { throw ConfigurationError("resourceTimeout must be positive") }
        if let connectTimeout, connectTimeout <= 0 { throw ConfigurationError("connectTimeout must be positive") }
        guard maximumConnectionsPerHost >= 1 else {
            throw ConfigurationError("maximumConnectionsPerHost must be at least 1")
        }
        guard maximumRedirects >= 0 else { throw ConfigurationError("maximumRedirects must not be negative") }
        guard maximumAuthenticationFailures >= 1 else {
            throw ConfigurationError("maximumAuthenticationFailures must be at least 1")
        }
        if let low = tlsMinimumVersion, let high = tlsMaximumVersion, low > high {
            throw ConfigurationError("tlsMinimumVersion \(low.rawValue) is above tlsMaximumVersion \(high.rawValue)")
        }
        if let pin = (pinnedPublicKeys + hostPinnedPublicKeys.flatMap(\.pins)).first(where: { !PublicKeyPin.isValid($0) }) {
            throw ConfigurationError("'\(pin)' is not a public-key pin (sha256// and the Base64 of 32 bytes)")
        }
        if let proxy, !(1...65535).contains(proxy.port) {
            throw ConfigurationError("proxy port \(proxy.port) is out of range")
        }
        try background?.validate()
    }
}

/// A metrics backend compared by identity, so configurations stay `Equatable`: the object itself,
/// or for a value-type backend the box made when it was set (copies of the configuration share it).
private struct MetricsFactoryReference: @unchecked Sendable, Equatable {
    let factory: any MetricsFactory
    private let identity: AnyObject

    init(factory: any MetricsFactory) {
        self.factory = factory
        self.identity = factory as AnyObject
    }

    static func == (lhs: MetricsFactoryReference, rhs: MetricsFactoryReference) -> Bool { lhs.identity === rhs.identity }
}

/// Protocol types compared by identity, so configurations stay `Equatable`.
private struct ProtocolTypeList: Sendable, Equatable {
    let types: [any TransferProtocol.Type]

    static func == (lhs: ProtocolTypeList, rhs: ProtocolTypeList) -> Bool {
        lhs.types.map(ObjectIdentifier.init) == rhs.types.map(ObjectIdentifier.init)
    }
}

/// A credential storage compared by identity, so configurations stay `Equatable`.
private struct CredentialStorageReference: Sendable, Equatable {
    let storage: any CredentialStorage

    static func == (lhs: CredentialStorageReference, rhs: CredentialStorageReference) -> Bool { lhs.storage === rhs.storage }
}

public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
