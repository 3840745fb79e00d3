import URLLoading

/// The `-v` lines, curl style: `>` for what is sent, `<` for what came back, `*` for the rest.
///
/// The request shows what Ferry asked for (method, URL, headers from the command line); the engine
/// adds its own (Host, User-Agent, Content-Length, ...) which it does not report back.
enum VerboseLog {
    static func request(_ request: TransferRequest) -> String {
        Self.request(
            method: request.method, url: request.url.absoluteString, headers: request.headers.map { ($0.name, $0.value) },
            bodyLength: request.body.map { Int64($0.count) })
    }

    /// A request as the generated API client sends it (ferry's gateway commands).
    static func request(method: String, url: String, headers: [(name: String, value: String)], bodyLength: Int64?) -> String {
        var lines = ["> \(method) \(url)"]
        lines += headers.map { "> \($0.name): \($0.value)" }
        if let bodyLength { lines.append("> (body: \(bodyLength) bytes)") }
        return lines.joined(separator: "\n")
    }

    static func response(_ response: TransferResponse) -> String {
        guard let statusCode = response.statusCode else {
            let length = response.expectedContentLength.map { ", \($0) bytes" } ?? ""
            return "< \(response.url.scheme ?? "") response from \(response.url.absoluteString)\(length)"
        }
        var lines = [Self.response(httpVersion: response.httpVersion, statusCode: statusCode, headers: response.headers.map { ($0.name, $0.value) })]
        if let status = response.cacheStatus { lines.append(cacheLine(status)) }
        return lines.joined(separator: "\n")
    }

    /// An HTTP response's head; the generated API client's responses do not say their HTTP version.
    static func response(httpVersion: String?, statusCode: Int, headers: [(name: String, value: String)]) -> String {
        (["< \(httpVersion ?? "HTTP") \(statusCode)"] + headers.map { "< \($0.name): \($0.value)" }).joined(separator: "\n")
    }

    /// With --cache-dir: where the response came from.
    static func cacheLine(_ status: CacheStatus) -> String {
        switch status {
        case .hit: "* cache hit: served from the cache"
        case .revalidated: "* cache revalidated: the origin answered 304, served from the cache"
        case .miss: "* cache miss: fetched from the origin"
        case .stale: "* cache stale: served stale, as the origin allows (stale-while-revalidate or stale-if-error)"
        }
    }

    static func redirect(to request: TransferRequest) -> String {
        "* following the redirect: \(request.method) \(request.url.absoluteString)"
    }
}
