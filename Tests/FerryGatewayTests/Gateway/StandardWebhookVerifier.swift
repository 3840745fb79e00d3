import Crypto
import Foundation

/// Verifies a delivery the way a receiver following the Standard Webhooks specification does,
/// written from the specification and independent of ferryd's signer: HMAC-SHA256 keyed with the
/// base64-decoded part of `whsec_...`, over `webhook-id.webhook-timestamp.body`, compared with every
/// `v1,` signature of the header; the timestamp must be within 5 minutes of now.
enum StandardWebhookVerifier {
    enum Failure: Error, Equatable {
        case missingHeaders, badSecret, timestampOutOfTolerance, noMatchingSignature
    }

    static let tolerance: TimeInterval = 5 * 60

    static func verify(headers: [String: String], body: Data, secret: String, now: Date = Date()) -> Result<Void, Failure> {
        guard let id = headers["webhook-id"], let timestampText = headers["webhook-timestamp"], let signatures = headers["webhook-signature"],
              let timestamp = TimeInterval(timestampText)
        else { return .failure(.missingHeaders) }
        guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst("whsec_".count))) else {
            return .failure(.badSecret)
        }
        guard abs(now.timeIntervalSince1970 - timestamp) <= tolerance else { return .failure(.timestampOutOfTolerance) }
        let message = Data("\(id).\(timestampText).".utf8) + body
        let expected = Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        for entry in signatures.split(separator: " ") {
            let parts = entry.split(separator: ",", maxSplits: 1)
            guard parts.count == 2, parts[0] == "v1", let given = Data(base64Encoded: String(parts[1])) else { continue }
            // Constant time, as a receiver should.
            if given.count == expected.count, zip(given, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 { return .success(()) }
        }
        return .failure(.noMatchingSignature)
    }

    static func isValid(_ delivery: WebhookReceiver.Delivery, secret: String, now: Date = Date()) -> Bool {
        if case .success = verify(headers: delivery.headers, body: delivery.body, secret: secret, now: now) { return true }
        return false
    }
}
