import Foundation
internal import CFerryTLS

/// SHA-256 public-key pins as curl writes them: `sha256//` and the Base64 of the SHA-256 of a
/// certificate's SubjectPublicKeyInfo (TLS-09). Pinning the key rather than the certificate survives a
/// re-issued certificate for the same key.
public enum PublicKeyPin {
    static let prefix = "sha256//"

    /// The pin of a DER certificate's public key; nil when the data is not a certificate.
    public static func sha256(ofCertificate der: Data) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = der.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return 0 }
            return ferry_tls_public_key_sha256(base, bytes.count, &digest)
        }
        return ok == 1 ? prefix + Data(digest).base64EncodedString() : nil
    }

    /// Whether `pin` is well formed: `sha256//` and the Base64 of 32 bytes.
    static func isValid(_ pin: String) -> Bool {
        guard pin.hasPrefix(prefix), let digest = Data(base64Encoded: String(pin.dropFirst(prefix.count))) else { return false }
        return digest.count == 32
    }
}

extension ServerTrust {
    /// The public-key pin of the certificate at `index` of the chain (0: the leaf), for a delegate that
    /// pins keys (TLS-09 prefers the issuing CA's key); nil when there is no such certificate.
    public func publicKeyPin(ofCertificateAt index: Int = 0) -> String? {
        certificateChain.indices.contains(index) ? PublicKeyPin.sha256(ofCertificate: certificateChain[index]) : nil
    }
}
