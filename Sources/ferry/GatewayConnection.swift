import FerryClient
import Foundation
import OpenAPIRuntime
import URLLoading
import URLLoadingOpenAPI

/// One ferryd's API, through Ferry's own engine: the client generated from the API's OpenAPI
/// document for the JSON operations, and authenticated engine requests for the three that stream
/// (a job's event stream, its content to a file, a blob from a file), each of which turns every
/// refusal into a `GatewayFailure` carrying the problem document's words.
struct GatewayConnection: Sendable {
    /// The server's URL without a trailing slash; API paths (`/v1/...`) are appended to it, so a
    /// gateway behind a path prefix works too.
    let baseURL: URL
    let apiKey: String
    let session: Session
    /// With `-v`: where each request and response status is printed, the key redacted.
    let log: Console?

    /// Problem documents are small; a larger error body is not one worth reading whole.
    static let maximumErrorBody = 64 * 1024

    /// How the API writes timestamps (RFC 3339 with fractional seconds), for the client and for the
    /// JSON this file decodes itself.
    static let dateTranscoder: ISO8601DateTranscoder = .iso8601WithFractionalSeconds

    init(baseURL: URL, apiKey: String, session: Session, log: Console?) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.session = session
        self.log = log
    }

    /// The generated client, sending through `session` (`URLLoadingTransport`) with the key, and
    /// `Prefer: preference` when given; `-v` sees the request as sent.
    func client(preferring preference: String? = nil) -> Client {
        let prefer: [any ClientMiddleware] = preference.map { [PreferHeaderMiddleware(preference: $0)] } ?? []
        return Client(
            serverURL: baseURL, configuration: Configuration(dateTranscoder: Self.dateTranscoder),
            transport: URLLoadingTransport(session: session),
            middlewares: [BearerAuthentication(apiKey: apiKey)] + prefer + [GatewayExchangeMiddleware(log: log)])
    }

    /// Runs one operation of the generated client; returns its output and the reply's body as
    /// received (for `--json`). A refusal, an unreachable server and an answer that is not `what`
    /// the API documents each become the matching `GatewayFailure`.
    func call<Output: Sendable>(
        what: String, preferring preference: String? = nil, _ operation: @Sendable (Client) async throws -> Output
    ) async throws(GatewayFailure) -> (output: Output, body: Data) {
        let body = GatewayExchangeMiddleware.ReplyBody()
        let client = client(preferring: preference)
        do {
            let output = try await GatewayExchangeMiddleware.$replyBody.withValue(body) { try await operation(client) }
            return (output, body.data.withLock { $0 })
        } catch let error as ClientError {
            switch error.underlyingError {
            case let failure as GatewayFailure: throw failure
            case let transfer as TransferError: throw GatewayFailure.unreachable(transfer)
            default: throw GatewayFailure.unexpectedAnswer(what)
            }
        } catch {
            throw GatewayFailure("\(error)")
        }
    }

    func url(_ path: String) -> URL {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            return baseURL.appendingPathComponent(path)
        }
        components.percentEncodedPath += path
        // The base URL was checked when the connection was made and the path is built from escaped
        // segments, so this cannot fail; the fallback keeps the compiler content without a `!`.
        return components.url ?? baseURL.appendingPathComponent(path)
    }

    /// `text` as one path segment: whatever the user typed cannot reach another route (`../admin`).
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// RFC 3986's unreserved characters, ASCII only (`.alphanumerics` would let other letters through).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// An authenticated engine request, for the operations that stream.
    func request(_ method: String, _ path: String) -> TransferRequest {
        var request = TransferRequest(url: url(path), method: method, body: nil)
        request.headers["Authorization"] = "Bearer \(apiKey)"
        request.headers["Accept"] = "application/json"
        return request
    }

    /// Throws the gateway's refusal when `response` is not a 2xx.
    static func requireSuccess(_ response: TransferResponse, body: Data) throws(GatewayFailure) {
        guard response.isSuccess else { throw GatewayFailure.refused(statusCode: response.statusCode ?? 0, body: body) }
    }

    /// Decodes JSON of the streaming operations (an event's job, a stored blob) as the generated
    /// types, with the client's dates.
    static func decode<Value: Decodable>(_ type: Value.Type, from body: Data, what: String) throws(GatewayFailure) -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            try dateTranscoder.decode(try decoder.singleValueContainer().decode(String.self))
        }
        do {
            return try decoder.decode(type, from: body)
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
