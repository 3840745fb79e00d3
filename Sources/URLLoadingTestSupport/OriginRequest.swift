import Foundation
import NIOHTTP1

/// One request as the origin's routes see it: the head, where it came from, and its body
/// (already read to the end before the route runs).
struct OriginRequest {
    let head: HTTPRequestHead
    /// The path without the query, e.g. "/bytes/100".
    let path: String
    /// Query parameters, percent-decoded; the first of repeated names wins.
    let query: [String: String]
    /// "HTTP/1.1", "HTTP/1.0" or "HTTP/2".
    let httpVersion: String
    /// "TLSv1.2" or "TLSv1.3" on an encrypted connection, else nil.
    let tlsVersion: String?
    let connectionID: Int
    var body = ReceivedBody()
    /// How many requests for the same URI (path and query) this server saw before this one, since
    /// it started or last reset its statistics: lets a route answer a retry differently.
    var earlierRequestsWithSameURI = 0

    init(head: HTTPRequestHead, connectionID: Int, tlsVersion: String?) {
        self.head = head
        self.connectionID = connectionID
        self.tlsVersion = tlsVersion
        self.httpVersion = head.version.major == 2 ? "HTTP/2" : "HTTP/\(head.version.major).\(head.version.minor)"
        let pieces = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.path = String(pieces.first ?? "")
        self.query = pieces.count > 1 ? Self.parseQuery(pieces[1]) : [:]
    }

    var method: String { head.method.rawValue }

    var headerFields: [HeaderField] {
        head.headers.map { HeaderField(name: $0.name, value: $0.value) }
    }

    /// The rest of the path after a route's `prefix`, e.g. "100" for "/bytes/100" and prefix "/bytes/".
    func pathParameter(after prefix: String) -> String {
        String(path.dropFirst(prefix.count))
    }

    /// An integer query parameter, `defaultValue` when absent, nil when present but not a number.
    func integerQuery(_ name: String, default defaultValue: Int) -> Int? {
        guard let text = query[name] else { return defaultValue }
        return Int(text)
    }

    func header(_ name: String) -> String? {
        head.headers.first(name: name)
    }

    /// `+` is left alone (not turned into a space): values such as "image/svg+xml" must survive.
    private static func parseQuery(_ query: Substring) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(nameAndValue[0]).removingPercentEncoding ?? String(nameAndValue[0])
            let rawValue = nameAndValue.count > 1 ? String(nameAndValue[1]) : ""
            if result[name] == nil {
                result[name] = rawValue.removingPercentEncoding ?? rawValue
            }
        }
        return result
    }
}
