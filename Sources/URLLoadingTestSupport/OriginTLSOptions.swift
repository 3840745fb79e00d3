import NIOSSL

extension OriginServer {
    /// How an `OriginServer` speaks TLS.
    public struct TLSOptions: Sendable {
        /// The server presents `certificates.serverCertificatePath`, valid for localhost and 127.0.0.1.
        public var certificates: TestCertificates
        /// Offer "h2" before "http/1.1" in ALPN. When false only HTTP/1.1 is spoken.
        public var http2: Bool
        /// The lowest version accepted; nil means TLS 1.2.
        public var minimumTLSVersion: TLSProtocolVersion?
        /// The highest version accepted; nil means the newest the library has (TLS 1.3).
        public var maximumTLSVersion: TLSProtocolVersion?
        /// Refuse the handshake unless the client presents a certificate signed by the test CA.
        public var requireClientCertificate: Bool
        /// Present `certificates.selfSignedServerCertificatePath` instead of the CA-signed certificate.
        public var selfSigned: Bool

        public init(
            certificates: TestCertificates,
            http2: Bool = true,
            minimumTLSVersion: TLSProtocolVersion? = nil,
            maximumTLSVersion: TLSProtocolVersion? = nil,
            requireClientCertificate: Bool = false,
            selfSigned: Bool = false
        ) {
            self.certificates = certificates
            self.http2 = http2
            self.minimumTLSVersion = minimumTLSVersion
            self.maximumTLSVersion = maximumTLSVersion
            self.requireClientCertificate = requireClientCertificate
            self.selfSigned = selfSigned
        }

        func makeSSLContext() throws -> NIOSSLContext {
            let certificatePath = selfSigned ? certificates.selfSignedServerCertificatePath : certificates.serverCertificatePath
            let keyPath = selfSigned ? certificates.selfSignedServerKeyPath : certificates.serverKeyPath
            let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            configuration.applicationProtocols = http2 ? ["h2", "http/1.1"] : ["http/1.1"]
            configuration.minimumTLSVersion = minimumTLSVersion?.nioVersion ?? .tlsv12
            configuration.maximumTLSVersion = maximumTLSVersion?.nioVersion
            if requireClientCertificate {
                // For a server this means: ask for a certificate, and fail the handshake without a valid one.
                configuration.certificateVerification = .noHostnameVerification
                configuration.trustRoots = .file(certificates.caCertificatePath)
            }
            return try NIOSSLContext(configuration: configuration)
        }
    }
}
