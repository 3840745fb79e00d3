import Foundation
import URLLoading

/// Turns a URL argument (or a line of an `-i` list) into a URL the engine can fetch.
///
/// Checked up front so that a typo or an unsupported scheme is a usage error, not a failed transfer
/// in the middle of a batch.
enum TargetURL {
    /// The schemes the engine implements (PR-01).
    static let supportedSchemes: Set<String> = ["http", "https", "ftp", "ftps", "file", "data"]

    static func parse(_ text: String) throws(UsageError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw UsageError("'\(text)' is not a URL (expected e.g. https://host/path)")
        }
        guard supportedSchemes.contains(scheme) else {
            throw UsageError(
                "'\(text)': unsupported URL scheme '\(scheme)' (supported: \(supportedSchemes.sorted().joined(separator: ", ")))")
        }
        if ["http", "https", "ftp", "ftps"].contains(scheme), (url.host ?? "").isEmpty {
            throw UsageError("'\(text)': the URL has no host")
        }
        if let port = WrittenPort.of(text), !port.isEmpty, !WrittenPort.isTCPPort(port) {
            throw UsageError("'\(text)': the port \(port) is not a TCP port (1 to 65535)")
        }
        return url
    }
}
