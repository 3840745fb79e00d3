import Foundation

/// A response's metadata (LC-18). For HTTP it carries the status code and headers; for ftp, file and
/// data URLs the status is nil.
public struct TransferResponse: Sendable, Equatable {
    /// The URL that answered: after redirects, the last hop's URL.
    public var url: URL
    public var statusCode: Int?
    public var headers: HTTPHeaders
    /// "HTTP/1.1", "HTTP/2", or nil for non-HTTP protocols.
    public var httpVersion: String?
    /// The body length announced by the server, or nil when unknown (LC-19).
    public var expectedContentLength: Int64?
    /// What the session's cache did for this response: served it, revalidated it, or missed (and
    /// the response came from the origin). Nil when no cache took part (none configured, a request
    /// the cache never sees, a non-HTTP URL).
    public var cacheStatus: CacheStatus?

    public init(
        url: URL, statusCode: Int?, headers: HTTPHeaders = [:], httpVersion: String? = nil,
        expectedContentLength: Int64? = nil
    ) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.httpVersion = httpVersion
        self.expectedContentLength = expectedContentLength
    }

    /// The media type without parameters, lower-cased ("text/html").
    public var mimeType: String? {
        guard let contentType = headers["Content-Type"] else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        let trimmed = type.trimmingFieldWhitespace
        return trimmed.isEmpty ? nil : trimmed.lowercasedASCII
    }

    /// The `charset` parameter of Content-Type, if any.
    public var textEncodingName: String? {
        guard let contentType = headers["Content-Type"] else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" {
                return parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " \"")).lowercased()
            }
        }
        return nil
    }

    /// A file name for saving the body: Content-Disposition's filename, else the URL's last component.
    public var suggestedFilename: String {
        if let disposition = headers["Content-Disposition"],
            let range = disposition.range(of: "filename=")
        {
            let raw = disposition[range.upperBound...].split(separator: ";").first ?? ""
            let name = raw.trimmingCharacters(in: CharacterSet(charactersIn: " \""))
            let safe = (name as NSString).lastPathComponent
            if !safe.isEmpty, safe != "/", safe != "..", safe != "." { return safe }
        }
        let last = url.lastPathComponent
        return last.isEmpty || last == "/" ? "index.html" : last
    }

    /// True for 2xx HTTP responses and for every non-HTTP response.
    public var isSuccess: Bool {
        guard let statusCode else { return true }
        return (200..<300).contains(statusCode)
    }
}
