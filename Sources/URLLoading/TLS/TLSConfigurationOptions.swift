import Foundation
internal import CCurl

/// The session-wide TLS settings that curl enforces itself: public-key pins, a configured client
/// identity, and `-k`'s skipped trust evaluation.
enum TLSConfigurationOptions {
    static func apply(to easy: EasyHandle, configuration: SessionConfiguration) throws(TransferError) {
        if !configuration.pinnedPublicKeys.isEmpty {
            // curl checks the leaf's key after the chain was accepted, so a pin only ever tightens trust (TLS-08).
            try easy.set(CURLOPT_PINNEDPUBLICKEY, string: configuration.pinnedPublicKeys.joined(separator: ";"), "CURLOPT_PINNEDPUBLICKEY")
        }
        if configuration.skipsServerTrustEvaluation {
            try easy.set(CURLOPT_SSL_VERIFYPEER, 0, "CURLOPT_SSL_VERIFYPEER")
            try easy.set(CURLOPT_SSL_VERIFYHOST, 0, "CURLOPT_SSL_VERIFYHOST")
        }
        try configuration.clientIdentity?.apply(to: easy)
    }
}
