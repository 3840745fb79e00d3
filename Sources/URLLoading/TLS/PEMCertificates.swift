import Foundation

/// The certificates in PEM text, DER encoded, in order.
enum PEMCertificates {
    static func decode(_ pem: String) -> [Data] {
        var certificates: [Data] = []
        var rest = pem[...]
        while let begin = rest.range(of: "-----BEGIN CERTIFICATE-----"),
              let end = rest.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<rest.endIndex) {
            let body = rest[begin.upperBound..<end.lowerBound]
            if let der = Data(base64Encoded: String(body), options: .ignoreUnknownCharacters), !der.isEmpty {
                certificates.append(der)
            }
            rest = rest[end.upperBound...]
        }
        return certificates
    }
}
