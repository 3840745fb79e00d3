import Foundation
import URLLoading

/// One ferryd's API, through Ferry's own engine: builds authenticated requests, sends them, and turns
/// every refusal into a `GatewayFailure` carrying the problem document's words.
struct GatewayConnection: Sendable {
    /// The server's URL without a trailing slash; API paths (`/v1/...`) are appended to it, so a
    /// gateway behind a path prefix works too.
    let baseURL: URL
    let apiKey: String
    let session: Session
    /// With `-v`: where each request and response status is printed, the key redacted.
    let log: Console?

    /// A reply with a 2xx status.
    struct Reply: Sendable {
        let response: TransferResponse
        let body: Data
    }

    /// Problem documents are small; a larger error body is not one worth reading whole.
    static let maximumErrorBody = 64 * 1024

    func url(_ path: String, query: [URLQueryItem] = []) -> URL {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            return baseURL.appendingPathComponent(path)
        }
        components.percentEncodedPath += path
        // Strictly escaped: a "+" left as is would reach some servers as a space.
        components.percentEncodedQueryItems =
            query.isEmpty ? nil : query.map { URLQueryItem(name: $0.name, value: $0.value.map(Self.segment)) }
        // The base URL was checked when the connection was made and the path is built from escaped
        // segments, so this cannot fail; the fallback keeps the compiler content without a `!`.
        return components.url ?? baseURL.appendingPathComponent(path)
    }

    /// `text` as one path segment or query value: whatever the user typed cannot reach another route
    /// (`../admin`) or add a parameter.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// RFC 3986's unreserved characters, ASCII only (`.alphanumerics` would let other letters through).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    func request(_ method: String, _ path: String, query: [URLQueryItem] = [], json: Data? = nil) -> TransferRequest {
        var request = TransferRequest(url: url(path, query: query), method: method, body: json)
        request.headers["Authorization"] = "Bearer \(apiKey)"
        request.headers["Accept"] = "application/json"
        if json != nil { request.headers["Content-Type"] = "application/json" }
        return request
    }

    /// Sends `request` with its body in memory and returns the 2xx reply.
    func send(_ request: TransferRequest) async throws(GatewayFailure) -> Reply {
        logRequest(request)
        let body: Data
        let response: TransferResponse
        do {
            (body, response) = try await session.data(for: request)
        } catch {
            throw GatewayFailure.unreachable(error)
        }
        logResponse(response)
        try Self.requireSuccess(response, body: body)
        return Reply(response: response, body: body)
    }

    /// `send`, with the JSON body encoded from `value`.
    func send(_ method: String, _ path: String, json value: some Encodable) async throws(GatewayFailure) -> Reply {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let body = try? encoder.encode(value) else { throw GatewayFailure("cannot encode the request body") }
        return try await send(request(method, path, json: body))
    }

    /// Throws the gateway's refusal when `response` is not a 2xx.
    static func requireSuccess(_ response: TransferResponse, body: Data) throws(GatewayFailure) {
        guard response.isSuccess else { throw GatewayFailure.refused(statusCode: response.statusCode ?? 0, body: body) }
    }

    /// Decodes a reply's body as the `what` the API documents.
    static func decode<Value: Decodable>(_ type: Value.Type, from body: Data, what: String) throws(GatewayFailure) -> Value {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw GatewayFailure.unexpectedAnswer(what)
        }
    }

    /// `-v`: the request as `ferry get -v` shows it, with the key replaced.
    func logRequest(_ request: TransferRequest) {
        guard let log else { return }
        var shown = request
        if shown.headers.contains("Authorization") { shown.headers["Authorization"] = "Bearer <redacted>" }
        log.printLines(VerboseLog.request(shown))
    }

    func logResponse(_ response: TransferResponse) {
        log?.printLines(VerboseLog.response(response))
    }

    /// `-v`: a note of ferry's own (`* ...`).
    func note(_ text: String) {
        log?.printLines("* " + text)
    }
}
