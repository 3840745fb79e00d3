import Foundation

/// What to fetch: the seeds' URL request (LC-21). A value type, so a task keeps its own deep copy and
/// later changes to the caller's variable have no effect on it (LC-20).
///
/// `Codable`, so resume data can carry it (the URL is encoded as its absolute string, the body as
/// base64). The encoding holds every header as is, credentials included: store it as you would the
/// request itself.
public struct TransferRequest: Sendable, Equatable, Codable {
    public var url: URL
    /// `GET` unless set; a body without a method set sends `POST`.
    public var method: String
    public var headers: HTTPHeaders
    /// A small in-memory body. Upload tasks take their body separately (`UploadBody`).
    public var body: Data?
    /// Idle timeout for this request (LC-22): the longest time without any bytes moving. Nil: the
    /// session's `requestTimeout`.
    public var timeoutInterval: TimeInterval?
    /// Higher runs first when a host's connections are all in use. 0.5 is the default (0...1).
    public var priority: Float
    /// Nil: the session's `requestCachePolicy` (CA-05, SES-26).
    public var cachePolicy: RequestCachePolicy?
    /// False: no stored cookies are sent and none from the responses are stored, on every hop (CK-02).
    public var httpShouldHandleCookies: Bool
    /// The page this request is made for; with the `onlyFromMainDocumentDomain` accept policy, only
    /// responses from its site may set cookies, and SameSite cookies stay on their site (CK-05).
    public var mainDocumentURL: URL?
    /// Values custom protocols keep on the request (PR-05), read and written through
    /// `TransferProtocol.property(forKey:in:)` and `setProperty(_:forKey:in:)`. Never sent.
    public var protocolProperties: [String: String] = [:]
    /// The key a custom protocol's hop is cached under (`TransferProtocol.cacheKey(for:)`), set by
    /// the engine on the copy it looks up and stores with. Never encoded or sent.
    var protocolCacheKey: String?

    public init(
        url: URL,
        method: String = "GET",
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeoutInterval: TimeInterval? = nil,
        priority: Float = TransferRequest.defaultPriority,
        cachePolicy: RequestCachePolicy? = nil,
        httpShouldHandleCookies: Bool = true,
        mainDocumentURL: URL? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
        self.priority = priority
        self.cachePolicy = cachePolicy
        self.httpShouldHandleCookies = httpShouldHandleCookies
        self.mainDocumentURL = mainDocumentURL
    }

    private enum CodingKeys: String, CodingKey {
        case url, method, headers, body
        case timeoutInterval = "timeout_interval"
        case priority
        case cachePolicy = "cache_policy"
        case httpShouldHandleCookies = "http_should_handle_cookies"
        case mainDocumentURL = "main_document_url"
        case protocolProperties = "protocol_properties"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .url)
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorruptedError(forKey: .url, in: container, debugDescription: "not a URL: \(text)")
        }
        self.init(
            url: url,
            method: try container.decode(String.self, forKey: .method),
            headers: try container.decodeIfPresent(HTTPHeaders.self, forKey: .headers) ?? [:],
            body: try container.decodeIfPresent(Data.self, forKey: .body),
            timeoutInterval: try container.decodeIfPresent(TimeInterval.self, forKey: .timeoutInterval),
            priority: try container.decodeIfPresent(Float.self, forKey: .priority) ?? Self.defaultPriority,
            cachePolicy: try container.decodeIfPresent(RequestCachePolicy.self, forKey: .cachePolicy),
            httpShouldHandleCookies: try container.decodeIfPresent(Bool.self, forKey: .httpShouldHandleCookies) ?? true,
            mainDocumentURL: try container.decodeIfPresent(String.self, forKey: .mainDocumentURL).flatMap(URL.init(string:)))
        protocolProperties = try container.decodeIfPresent([String: String].self, forKey: .protocolProperties) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url.absoluteString, forKey: .url)
        try container.encode(method, forKey: .method)
        try container.encode(headers, forKey: .headers)
        try container.encodeIfPresent(body, forKey: .body)
        try container.encodeIfPresent(timeoutInterval, forKey: .timeoutInterval)
        try container.encode(priority, forKey: .priority)
        try container.encodeIfPresent(cachePolicy, forKey: .cachePolicy)
        if !httpShouldHandleCookies { try container.encode(false, forKey: .httpShouldHandleCookies) }
        try container.encodeIfPresent(mainDocumentURL?.absoluteString, forKey: .mainDocumentURL)
        if !protocolProperties.isEmpty { try container.encode(protocolProperties, forKey: .protocolProperties) }
    }

    public static let defaultPriority: Float = 0.5
    public static let lowPriority: Float = 0.25
    public static let highPriority: Float = 0.75
}
