/// The validators of a response that make its body resumable (DL-07, DL-08): a strong ETag and/or a
/// Last-Modified date, which `If-Range` sends back so that the server answers 206 only for the very
/// same entity.
struct EntityValidators: Sendable, Equatable {
    var entityTag: String?
    var lastModified: String?

    /// Nil when the response's body cannot be continued later: not a 200 or 206, content-encoded
    /// (curl decodes it, so file offsets are not the server's byte offsets), or without a usable
    /// validator. A weak ETag (`W/"..."`) does not count: RFC 9110 forbids it in If-Range.
    init?(response: TransferResponse) {
        guard response.statusCode == 200 || response.statusCode == 206 else { return nil }
        if let encoding = response.headers["Content-Encoding"], !encoding.equalsIgnoringASCIICase("identity") { return nil }
        let tag = response.headers["ETag"].map { String($0.trimmingFieldWhitespace) }
        entityTag = tag.flatMap { Self.isStrongEntityTag($0) ? $0 : nil }
        lastModified = response.headers["Last-Modified"].map { String($0.trimmingFieldWhitespace) }
        if lastModified?.isEmpty == true { lastModified = nil }
        if entityTag == nil && lastModified == nil { return nil }
    }

    init(entityTag: String?, lastModified: String?) {
        self.entityTag = entityTag
        self.lastModified = lastModified
    }

    /// `"..."` with no `W/` prefix.
    static func isStrongEntityTag(_ value: String) -> Bool {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"")
    }
}
