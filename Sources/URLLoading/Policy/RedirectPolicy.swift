import Foundation

/// The request a redirect proposes, built the way browsers and Foundation do (RD-01, RD-04).
///
/// - 301, 302 and 303 turn POST into GET and drop the body; 303 turns everything but HEAD into GET.
/// - 307 and 308 keep the method and the body.
/// - Credentials and cookies never cross to another origin: `Authorization`, `Cookie` and
///   `Proxy-Authorization` are removed when scheme, host or port change.
enum RedirectPolicy {
    static let redirectStatusCodes: Set<Int> = [301, 302, 303, 307, 308]

    enum Outcome: Equatable {
        case redirect(TransferRequest)
        /// Not a redirect we can follow (no Location, or a status that is not a redirect).
        case notARedirect
        /// A Location we refuse to follow: unparseable, or a scheme other than http/https.
        case unsupportedLocation(String)
    }

    static func proposedRequest(after request: TransferRequest, statusCode: Int, location: String?) -> Outcome {
        guard redirectStatusCodes.contains(statusCode), let location, !location.isEmpty else { return .notARedirect }
        guard let target = URL(string: location.trimmingCharacters(in: .whitespaces), relativeTo: request.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else { return .unsupportedLocation(location) }

        var next = request
        next.url = Self.inheritingFragment(target, from: request.url)
        let method = request.method.uppercased()
        let becomesGET = (statusCode == 303 && method != "HEAD") || ((statusCode == 301 || statusCode == 302) && method == "POST")
        if becomesGET {
            next.method = "GET"
            next.body = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.headers.removeAll(name)
            }
        }
        if !isSameOrigin(request.url, next.url) {
            for name in ["Authorization", "Cookie", "Proxy-Authorization"] {
                next.headers.removeAll(name)
            }
        }
        return .redirect(next)
    }

    /// True when a redirect keeps the body and so must send it again (307, 308).
    static func resendsBody(statusCode: Int, originalMethod: String, newMethod: String) -> Bool {
        (statusCode == 307 || statusCode == 308) && originalMethod.uppercased() == newMethod.uppercased()
    }

    static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        case "ftp": return 21
        default: return nil
        }
    }

    /// A Location without a fragment keeps the original request's fragment (RFC 9110 §10.2.2).
    private static func inheritingFragment(_ target: URL, from original: URL) -> URL {
        guard target.fragment == nil, let fragment = original.fragment,
            var components = URLComponents(url: target, resolvingAgainstBaseURL: false)
        else { return target }
        components.fragment = fragment
        return components.url ?? target
    }
}
