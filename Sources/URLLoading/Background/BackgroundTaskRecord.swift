import Foundation

/// What a background session keeps of one outstanding task, so that a session made later with the
/// same identifier (in this process or another) can take it up again (BG-08, BG-12, BG-13).
///
/// Only http(s) downloads and uploads from a file are kept (BG-04): a data task's body lives in
/// memory and a stream cannot be read twice, so neither could outlive the process.
///
/// The request is kept without the headers that carry secrets (`secretHeaderNames`): a bearer token
/// or a session cookie written to disk would outlive the code that chose to send it, and a file in a
/// state directory is read by backups and the like. A task taken up again asks for credentials the
/// usual way instead: a server's challenge is answered from the session's credential storage or by
/// its delegate (AU-01, AU-09), and cookies come from the session's cookie storage. The task running
/// in the process that made it still sends its headers as given, retries included.
///
/// The JSON form (`version` 1) has the keys `version`, `task_identifier`, `kind` ("download" or
/// "upload"), `request` (a `TransferRequest`), `upload_file` (an absolute path), `resume_data` (a
/// `ResumeData`), `temporary_directory` (an absolute path), `task_description` and `created_at`
/// (seconds since 1970).
public struct BackgroundTaskRecord: Sendable, Equatable, Codable {
    public static let currentVersion = 1

    public enum Kind: String, Sendable, Equatable, Codable {
        case download
        case upload
    }

    /// Header fields never written to a store (see above).
    public static let secretHeaderNames = ["Authorization", "Proxy-Authorization", "Cookie"]

    public var version: Int
    public var taskIdentifier: Int
    public var kind: Kind
    /// The task's original request, without secret headers.
    public var request: TransferRequest
    /// For an upload: the file whose bytes are sent.
    public var uploadFile: URL?
    /// For a download: the latest resume data, when it received something that can be continued.
    /// Its request is kept without secret headers too.
    public var resumeData: ResumeData?
    /// Where the download writes its file, when the task named a directory of its own.
    public var temporaryDirectory: URL?
    /// The caller's note on the task (`SessionTask.taskDescription`), e.g. where the file should go.
    public var taskDescription: String?
    /// When the task was first started: its resource timeout counts from here, across processes (SES-19).
    public var createdAt: Date

    public init(
        taskIdentifier: Int, kind: Kind, request: TransferRequest, uploadFile: URL? = nil, resumeData: ResumeData? = nil,
        temporaryDirectory: URL? = nil, taskDescription: String? = nil, createdAt: Date
    ) {
        self.version = Self.currentVersion
        self.taskIdentifier = taskIdentifier
        self.kind = kind
        self.request = Self.withoutSecrets(request)
        self.uploadFile = uploadFile
        self.resumeData = resumeData.map(Self.withoutSecrets)
        self.temporaryDirectory = temporaryDirectory
        self.taskDescription = taskDescription
        self.createdAt = createdAt
    }

    static func withoutSecrets(_ request: TransferRequest) -> TransferRequest {
        var request = request
        for name in secretHeaderNames { request.headers.removeAll(name) }
        return request
    }

    static func withoutSecrets(_ resumeData: ResumeData) -> ResumeData {
        var resumeData = resumeData
        resumeData.originalRequest = withoutSecrets(resumeData.originalRequest)
        return resumeData
    }

    // MARK: - JSON

    public func jsonData() throws(BackgroundTaskStoreError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self)
        } catch {
            throw BackgroundTaskStoreError("cannot encode the record of task \(taskIdentifier): \(error)")
        }
    }

    /// Decodes `jsonData()`'s output; anything a session could not take up is an error.
    public init(jsonData: Data) throws(BackgroundTaskStoreError) {
        do {
            self = try JSONDecoder().decode(BackgroundTaskRecord.self, from: jsonData)
        } catch let error as BackgroundTaskStoreError {
            throw error
        } catch {
            throw BackgroundTaskStoreError("unreadable record: \(error)")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case version
        case taskIdentifier = "task_identifier"
        case kind, request
        case uploadFile = "upload_file"
        case resumeData = "resume_data"
        case temporaryDirectory = "temporary_directory"
        case taskDescription = "task_description"
        case createdAt = "created_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        guard (1...Self.currentVersion).contains(version) else {
            throw BackgroundTaskStoreError("record version \(version) is not supported (this engine reads 1...\(Self.currentVersion))")
        }
        taskIdentifier = try container.decode(Int.self, forKey: .taskIdentifier)
        kind = try container.decode(Kind.self, forKey: .kind)
        request = try container.decode(TransferRequest.self, forKey: .request)
        uploadFile = try container.decodeIfPresent(String.self, forKey: .uploadFile).map { URL(fileURLWithPath: $0) }
        resumeData = try container.decodeIfPresent(ResumeData.self, forKey: .resumeData)
        temporaryDirectory = try container.decodeIfPresent(String.self, forKey: .temporaryDirectory)
            .map { URL(fileURLWithPath: $0, isDirectory: true) }
        taskDescription = try container.decodeIfPresent(String.self, forKey: .taskDescription)
        createdAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .createdAt))
        if let problem = problem { throw BackgroundTaskStoreError(problem) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(taskIdentifier, forKey: .taskIdentifier)
        try container.encode(kind, forKey: .kind)
        try container.encode(request, forKey: .request)
        try container.encodeIfPresent(uploadFile?.path, forKey: .uploadFile)
        try container.encodeIfPresent(resumeData, forKey: .resumeData)
        try container.encodeIfPresent(temporaryDirectory?.path, forKey: .temporaryDirectory)
        try container.encodeIfPresent(taskDescription, forKey: .taskDescription)
        try container.encode(createdAt.timeIntervalSince1970, forKey: .createdAt)
    }

    /// Why no session could take this record up, or nil: a decoded record is checked as a task's
    /// creation would check it, so a hand-edited or damaged one is reported rather than failing later.
    var problem: String? {
        guard taskIdentifier > 0 else { return "task identifier \(taskIdentifier) is not positive" }
        if let refusal = BackgroundRestrictions.refusal(for: request.url) { return refusal.message }
        switch kind {
        case .download:
            if uploadFile != nil { return "a download record names an upload file" }
            if let resumeData {
                do throws(TransferError) {
                    try resumeData.validate()
                } catch {
                    return error.message
                }
            }
        case .upload:
            guard let uploadFile, uploadFile.path.hasPrefix("/") else { return "an upload record names no absolute upload file" }
            if resumeData != nil { return "an upload record holds resume data" }
        }
        return nil
    }
}
