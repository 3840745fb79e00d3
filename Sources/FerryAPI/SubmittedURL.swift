import FerryModel
import Foundation

/// The checks every URL given to the API passes (a job's, a callback's, a webhook endpoint's, a
/// redirect decision's): at most `maximumLength` bytes, absolute, and accepted by the SSRF guard's
/// scheme and host rules (addresses are checked again at each connection).
///
/// The length bound is RFC 9110 §4.1's "at least 8000 octets" that senders and recipients should
/// support: longer URLs fail at many servers anyway, and every byte of one is stored with the job,
/// each of its events and its webhooks.
enum SubmittedURL {
    static let maximumLength = 8192

    /// The problem with `text` for its field, or nil when it passes. `webOnly`: http and https only.
    static func problem(_ text: String, policy: OutboundURLPolicy, webOnly: Bool) -> String? {
        if text.utf8.count > maximumLength { return "is longer than \(maximumLength) bytes" }
        guard let parsed = URL(string: text), let scheme = parsed.scheme?.lowercased() else {
            return webOnly ? "must be an http or https URL" : "is not an absolute URL"
        }
        if webOnly, scheme != "http", scheme != "https" { return "must be an http or https URL" }
        return policy.check(parsed)?.description
    }
}
