import Foundation
internal import CCurl
internal import CFerryTLS

/// TLS options: the session's bounds, CAs, pins and identity on every handle (TLS-02, TLS-08, TLS-11,
/// TLS-12), then a TLS hop's own settings (`HopTLSSettings`), which replace what they name.
extension CurlRequestOptions {
    static func applyTLS(to easy: EasyHandle, configuration: SessionConfiguration) throws(TransferError) {
        func minimum(_ version: SessionConfiguration.TLSVersion?) -> Int {
            switch version {
            case nil: Int(CURL_SSLVERSION_DEFAULT)
            case .tls10: Int(CURL_SSLVERSION_TLSv1_0)
            case .tls11: Int(CURL_SSLVERSION_TLSv1_1)
            case .tls12: Int(CURL_SSLVERSION_TLSv1_2)
            case .tls13: Int(CURL_SSLVERSION_TLSv1_3)
            }
        }
        func maximum(_ version: SessionConfiguration.TLSVersion?) -> Int {
            switch version {
            case nil: Int(CURL_SSLVERSION_MAX_DEFAULT)
            case .tls10: Int(CURL_SSLVERSION_MAX_TLSv1_0)
            case .tls11: Int(CURL_SSLVERSION_MAX_TLSv1_1)
            case .tls12: Int(CURL_SSLVERSION_MAX_TLSv1_2)
            case .tls13: Int(CURL_SSLVERSION_MAX_TLSv1_3)
            }
        }
        try easy.set(CURLOPT_SSLVERSION, minimum(configuration.tlsMinimumVersion) | maximum(configuration.tlsMaximumVersion),
                     "CURLOPT_SSLVERSION")
        if let pem = configuration.additionalTrustedCAsPEM {
            try easy.set(CURLOPT_CAINFO_BLOB, blob: Data(pem.utf8), "CURLOPT_CAINFO_BLOB")
        }
        if !configuration.pinnedPublicKeys.isEmpty {
            // curl checks the leaf's key after the chain was accepted, so a pin only ever tightens trust (TLS-08).
            try easy.set(CURLOPT_PINNEDPUBLICKEY, string: configuration.pinnedPublicKeys.joined(separator: ";"), "CURLOPT_PINNEDPUBLICKEY")
        }
        if configuration.skipsServerTrustEvaluation {
            try easy.set(CURLOPT_SSL_VERIFYPEER, 0, "CURLOPT_SSL_VERIFYPEER")
            try easy.set(CURLOPT_SSL_VERIFYHOST, 0, "CURLOPT_SSL_VERIFYHOST")
        }
        if let identity = configuration.clientIdentity { try apply(identity, to: easy) }
    }

    /// A TLS hop's settings, after the request's options.
    static func apply(_ settings: HopTLSSettings, to easy: EasyHandle, url: URL) throws(TransferError) {
        if let pins = settings.pinnedPublicKeys {
            try easy.set(CURLOPT_PINNEDPUBLICKEY, string: pins, "CURLOPT_PINNEDPUBLICKEY")
        }
        if let pem = settings.trustedCAsPEM {
            try easy.set(CURLOPT_CAINFO_BLOB, blob: Data(pem.utf8), "CURLOPT_CAINFO_BLOB")
        }
        if let identity = settings.clientIdentity { try apply(identity, to: easy) }
        if settings.isolatesConnection {
            // curl reuses a connection (and resumes a TLS session) for any transfer whose TLS settings
            // compare equal, and the SSL context hook is not among them: without a difference, a session
            // without a delegate could ride on a connection this session's delegate accepted. NO_REVOKE
            // only affects Schannel, so for OpenSSL it is nothing but that difference.
            try easy.set(CURLOPT_SSL_OPTIONS, Int(CURLSSLOPT_NO_REVOKE), "CURLOPT_SSL_OPTIONS")
            // Two sessions that both decide trust still compare equal, and the loops' pool serves every
            // session: a connection this session's certificates or delegate accepted must not serve
            // another one (in the gateway, another tenant) that never trusted that server. Closed after
            // its transfer; the next transfer evaluates its own handshake.
            try easy.set(CURLOPT_FORBID_REUSE, 1, "CURLOPT_FORBID_REUSE")
        }
        if settings.hookChecksHostName { try easy.set(CURLOPT_SSL_VERIFYHOST, 0, "CURLOPT_SSL_VERIFYHOST") }
        if let handle = settings.hook?.handle {
            let code = ferry_tls_hook_install(easy.raw, handle)
            guard code == Int32(CURLE_OK.rawValue) else {
                throw TransferError(.secureConnectionFailed, "libcurl refused the TLS hook (CURLOPT_SSL_CTX_FUNCTION)",
                                    failingURL: url, curlCode: Int(code))
            }
        }
    }

    /// Makes curl present `identity` (TLS-11, AU-17); curl copies the bytes.
    private static func apply(_ identity: ClientIdentity, to easy: EasyHandle) throws(TransferError) {
        switch identity {
        case .pem(let certificate, let privateKey, let passphrase):
            try easy.set(CURLOPT_SSLCERT_BLOB, blob: certificate, "CURLOPT_SSLCERT_BLOB")
            try easy.set(CURLOPT_SSLCERTTYPE, string: "PEM", "CURLOPT_SSLCERTTYPE")
            try easy.set(CURLOPT_SSLKEY_BLOB, blob: privateKey, "CURLOPT_SSLKEY_BLOB")
            try easy.set(CURLOPT_SSLKEYTYPE, string: "PEM", "CURLOPT_SSLKEYTYPE")
            if let passphrase { try easy.set(CURLOPT_KEYPASSWD, string: passphrase, "CURLOPT_KEYPASSWD") }
        case .pkcs12(let bundle, let passphrase):
            try easy.set(CURLOPT_SSLCERT_BLOB, blob: bundle, "CURLOPT_SSLCERT_BLOB")
            try easy.set(CURLOPT_SSLCERTTYPE, string: "P12", "CURLOPT_SSLCERTTYPE")
            if let passphrase { try easy.set(CURLOPT_KEYPASSWD, string: passphrase, "CURLOPT_KEYPASSWD") }
        }
    }
}
