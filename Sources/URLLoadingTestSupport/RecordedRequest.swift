/// What an `OriginServer` saw of one request, kept so tests can assert on what the client sent.
public struct RecordedRequest: Sendable, Hashable {
    /// The request method, e.g. "GET".
    public var method: String
    /// The path and query exactly as they appeared on the request line (origin form).
    public var uri: String
    /// The request headers in arrival order. Over HTTP/2 the names are lower case and
    /// `:authority` appears as `host`.
    public var headers: [HeaderField]
    /// Bytes of request body received. It stays 0 until the whole body has been read.
    public var bodyLength: Int
    /// Identifies the TCP connection the request came on; requests that share one share this.
    public var connectionID: Int
    /// "HTTP/1.1", "HTTP/1.0" or "HTTP/2".
    public var httpVersion: String
    /// "TLSv1.2" or "TLSv1.3" when the connection is encrypted, else nil.
    public var tlsVersion: String?

    public init(
        method: String,
        uri: String,
        headers: [HeaderField],
        bodyLength: Int,
        connectionID: Int,
        httpVersion: String,
        tlsVersion: String?
    ) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.bodyLength = bodyLength
        self.connectionID = connectionID
        self.httpVersion = httpVersion
        self.tlsVersion = tlsVersion
    }

    /// The path without the query.
    public var path: String {
        String(uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// The first value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.value(for: name)
    }
}
