import Foundation

/// Everything a download needs to continue where it stopped (DL-07, DL-08, DL-12), as a value that
/// outlives the process: encode it (`jsonData()`), store it anywhere, decode it in a new process and
/// pass it to `Session.downloadTask(withResumeData:)`.
///
/// Where it comes from:
/// - `DownloadTask.cancelProducingResumeData()` (pause, DL-07);
/// - `TransferError.resumeData` of a download that failed mid-body: connection lost, timed out, ...
///   (DL-08, ER-05);
/// - `DownloadTask.resumeDataSnapshot()` while the task runs, to persist periodically so that even a
///   killed process can continue (DL-12).
///
/// It exists only for what can be continued safely: an http(s) GET without a body or a `Range` of its
/// own, whose response was a 2xx with a strong `ETag` or a `Last-Modified` (the validators that make
/// `If-Range` safe), not content-encoded (a decoded body's offsets are not the server's), and at
/// least one byte in the partial file; or an ftp(s) download whose server said the file's size
/// (SIZE; with its modification time, MDTM, when it says that too), kept here as `expectedTotal`
/// and `lastModified`, and checked again before the rest is fetched with REST. Otherwise the
/// producers give nil and the download must start again from scratch (DL-10).
///
/// The partial file belongs to whoever holds the resume data: the engine keeps it when it hands out
/// resume data, and deletes it only when a task continuing from it is cancelled without producing
/// new resume data. `removePartialFile()` discards it when giving up.
///
/// Resuming checks the partial file first: its first `offset` bytes must hash to `sha256` (bytes past
/// `offset`, written after a snapshot, are cut off). A missing, shorter or changed file is not an
/// error: the download starts again from byte 0 in the same file, reported as
/// `.resumed(offset: 0, ...)`. The file is never left holding a mix of two versions.
///
/// The JSON form (`version` 1) uses these keys: `version`, `url`, `request` (a `TransferRequest`:
/// url, method, headers, body, timeout_interval, priority), `entity_tag`, `last_modified`, `offset`,
/// `partial_file` (an absolute path), `sha256`, `expected_total`. It holds the request's headers as
/// they are, credentials included: store it as you would the request.
public struct ResumeData: Sendable, Equatable, Codable {
    /// The format this engine writes, and the newest it reads.
    public static let currentVersion = 1

    public var version: Int
    /// The URL whose response the bytes came from (after redirects). Informative: resuming sends
    /// `originalRequest` again, following redirects anew, and `If-Range` checks it is the same entity.
    public var url: URL
    /// The download's request as it was created.
    public var originalRequest: TransferRequest
    /// The response's strong ETag, quotes included; nil when it had none or only a weak one.
    public var entityTag: String?
    /// The response's Last-Modified date, as sent.
    public var lastModified: String?
    /// Bytes of the body already in the partial file, and where the download continues.
    public var offset: Int64
    /// The file holding the first `offset` bytes of the body (it may hold more; they are cut off).
    public var partialFile: URL
    /// SHA-256 of the partial file's first `offset` bytes, 64 lower-case hex digits.
    public var sha256: String
    /// The whole body's length, when the server said.
    public var expectedTotal: Int64?

    public init(
        url: URL, originalRequest: TransferRequest, entityTag: String?, lastModified: String?, offset: Int64,
        partialFile: URL, sha256: String, expectedTotal: Int64?
    ) {
        self.version = Self.currentVersion
        self.url = url
        self.originalRequest = originalRequest
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.offset = offset
        self.partialFile = partialFile
        self.sha256 = sha256
        self.expectedTotal = expectedTotal
    }

    // MARK: - JSON

    /// The JSON form, keys sorted so equal values give equal bytes.
    public func jsonData() throws(TransferError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self)
        } catch {
            throw TransferError(.unknown, "cannot encode the resume data: \(error)")
        }
    }

    /// Decodes `jsonData()`'s output; a newer version or a malformed value is an `invalidRequest` error.
    public init(jsonData: Data) throws(TransferError) {
        do {
            self = try JSONDecoder().decode(ResumeData.self, from: jsonData)
        } catch {
            throw TransferError(.invalidRequest, "unusable resume data: \(error)")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case version, url
        case originalRequest = "request"
        case entityTag = "entity_tag"
        case lastModified = "last_modified"
        case offset
        case partialFile = "partial_file"
        case sha256
        case expectedTotal = "expected_total"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        guard (1...Self.currentVersion).contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "resume data version \(version) is not supported (this engine reads 1...\(Self.currentVersion))")
        }
        let urlText = try container.decode(String.self, forKey: .url)
        guard let url = URL(string: urlText) else {
            throw DecodingError.dataCorruptedError(forKey: .url, in: container, debugDescription: "not a URL: \(urlText)")
        }
        self.url = url
        originalRequest = try container.decode(TransferRequest.self, forKey: .originalRequest)
        entityTag = try container.decodeIfPresent(String.self, forKey: .entityTag)
        lastModified = try container.decodeIfPresent(String.self, forKey: .lastModified)
        offset = try container.decode(Int64.self, forKey: .offset)
        partialFile = URL(fileURLWithPath: try container.decode(String.self, forKey: .partialFile))
        sha256 = try container.decode(String.self, forKey: .sha256)
        expectedTotal = try container.decodeIfPresent(Int64.self, forKey: .expectedTotal)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(url.absoluteString, forKey: .url)
        try container.encode(originalRequest, forKey: .originalRequest)
        try container.encodeIfPresent(entityTag, forKey: .entityTag)
        try container.encodeIfPresent(lastModified, forKey: .lastModified)
        try container.encode(offset, forKey: .offset)
        try container.encode(partialFile.path, forKey: .partialFile)
        try container.encode(sha256, forKey: .sha256)
        try container.encodeIfPresent(expectedTotal, forKey: .expectedTotal)
    }

    // MARK: - Housekeeping

    /// Deletes the partial file: for when the download will not be continued.
    public func removePartialFile() {
        unlink(partialFile.path)
    }

    /// Throws when no task could continue from this value (checked when the task is made).
    func validate() throws(TransferError) {
        func refuse(_ reason: String) -> TransferError {
            TransferError(.invalidRequest, "unusable resume data: \(reason)", failingURL: originalRequest.url)
        }
        guard (1...Self.currentVersion).contains(version) else { throw refuse("version \(version) is not supported") }
        guard offset >= 0 else { throw refuse("negative offset \(offset)") }
        guard sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else { throw refuse("sha256 is not 64 hex digits") }
        guard partialFile.isFileURL, partialFile.path.hasPrefix("/") else { throw refuse("the partial file is not an absolute path") }
        guard Self.canResume(originalRequest) else {
            throw refuse("only http(s) GET requests and ftp(s) downloads without a body or a Range header can be resumed")
        }
    }

    /// True for requests whose body can be continued with a Range request (REST for ftp).
    static func canResume(_ request: TransferRequest) -> Bool {
        let scheme = request.url.scheme?.lowercased()
        return ["http", "https", "ftp", "ftps"].contains(scheme) && request.method.uppercased() == "GET" && request.body == nil
            && !request.headers.contains("Range") && !request.headers.contains("If-Range")
    }

    /// The request that continues at `offset`: `Range: bytes=offset-`, and `If-Range` with the ETag,
    /// else the Last-Modified date (hand-made resume data with neither sends Range alone).
    static func continuing(_ request: TransferRequest, at offset: Int64, entityTag: String?, lastModified: String?) -> TransferRequest {
        var request = request
        request.headers["Range"] = "bytes=\(offset)-"
        if let validator = entityTag ?? lastModified { request.headers["If-Range"] = validator }
        return request
    }

    /// `request` without the headers `continuing` added: for starting over from byte 0.
    static func fromTheStart(_ request: TransferRequest) -> TransferRequest {
        var request = request
        request.headers.removeAll("Range")
        request.headers.removeAll("If-Range")
        return request
    }
}
