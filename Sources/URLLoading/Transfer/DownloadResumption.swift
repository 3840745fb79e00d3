import Foundation

/// A download's part in resume data on its transfer (DL-07..DL-12): the resume data it continues
/// from, its reopened partial file until a response's body goes into it, and what the response being
/// written needs for resume data of its own. Loop-confined, like its transfer.
struct DownloadResumption {
    /// The resume data the download continues from.
    let source: ResumeData?
    /// The partial file is being checked off the loop; the first hop waits for it.
    var reopeningPartialFile = false
    /// The reopened partial file, until a response's body goes into it. It stays here (and is kept)
    /// when an unrelated response (a 404) gets a file of its own.
    var partialFile: DownloadFile?
    /// The offset the current hop's `Range` asked for; 0 when it sent none.
    var requestedOffset: Int64 = 0
    /// The final response's validators, when its body can be continued later.
    private(set) var entityValidators: EntityValidators?
    /// The whole body's length, when known.
    private(set) var entityTotal: Int64?
    /// For an ftp download: what the server said of the file, in place of a response's headers.
    var remoteFile: RemoteFileFacts?

    init(source: ResumeData?) {
        self.source = source
    }

    /// Notes what resume data will need of `response`, and returns the partial file when the response
    /// continues it (206, from its end) or replaces it (a whole body, from 0); nil when the body needs
    /// a new file.
    mutating func takePartialFile(for response: TransferResponse?) throws(TransferError) -> (file: DownloadFile, offset: Int64)? {
        if let remoteFile {
            return try takePartialFile(for: remoteFile)
        }
        entityValidators = response.flatMap(EntityValidators.init(response:))
        let encoded = response?.headers.contains("Content-Encoding") ?? false
        entityTotal = encoded ? nil : response?.expectedContentLength
        guard let partial = partialFile, let response else { return nil }
        let offset: Int64
        switch classify(response.statusCode, headers: response.headers) {
        case .append(let expectedTotal):
            offset = partial.length
            entityTotal = expectedTotal
            // Hand-made resume data without validators continued with Range alone: keep its (none).
            if entityValidators == nil, let source {
                entityValidators = EntityValidators(entityTag: source.entityTag, lastModified: source.lastModified)
            }
        case .replace(let expectedTotal):
            try partial.truncateToZero()
            offset = 0
            entityTotal = expectedTotal
        case .unrelated, .restartWithoutRange:
            return nil
        }
        partialFile = nil
        return (partial, offset)
    }

    /// Facts about the ftp file learnt after its body started: they become the validators when the
    /// first byte came without them.
    mutating func learnRemoteFile(_ facts: RemoteFileFacts) {
        guard entityValidators == nil, let validators = facts.validators else { return }
        remoteFile = facts
        entityValidators = validators
        entityTotal = facts.size
    }

    /// The ftp form of the above: a hop resumed at an offset (REST) was already checked against the
    /// resume data's size and modification time, so it appends; one from byte 0 replaces.
    private mutating func takePartialFile(for remoteFile: RemoteFileFacts) throws(TransferError) -> (file: DownloadFile, offset: Int64)? {
        entityValidators = remoteFile.validators
        entityTotal = remoteFile.size
        guard let partial = partialFile else { return nil }
        let offset: Int64
        if requestedOffset > 0 {
            offset = partial.length
        } else {
            try partial.truncateToZero()
            offset = 0
        }
        partialFile = nil
        return (partial, offset)
    }

    /// What the current hop's response means for the partial file: a 206 appends only when it starts
    /// at the offset asked and carries the validator the resume data holds (DL-09, DL-10).
    func classify(_ statusCode: Int?, headers: HTTPHeaders) -> ResumeResponse {
        ResumeResponse.classify(
            statusCode: statusCode, headers: headers, requestedOffset: requestedOffset,
            validators: source.map { EntityValidators(entityTag: $0.entityTag, lastModified: $0.lastModified) })
    }

    /// Nothing of the partial file fits what the server now holds: empty it before the request that
    /// starts over, so that no later resume data can name those bytes, whatever that request meets.
    mutating func discardPartialBytes() throws(TransferError) {
        requestedOffset = 0
        try partialFile?.truncateToZero()
    }

    /// Resume data as far as the loop knows it: ready, or waiting for the hash of a file's prefix.
    enum Draft {
        case ready(ResumeData)
        /// `data` once its `sha256` is the digest of `file`'s first `data.offset` bytes (its length
        /// now), which `DownloadFile.sha256(reply:)` computes off the loop.
        case hashing(DownloadFile, into: ResumeData)
    }

    /// What continues the download from the bytes written so far, or nil when it cannot be continued.
    /// `written` is the file the response's body goes to, `url` the response's.
    func resumeData(written: DownloadFile?, of download: DownloadTask, url: URL) -> Draft? {
        if let file = written, let validators = entityValidators {
            // A sent body (an upload job writing to a file) is not repeated by a Range request.
            guard file.length > 0, !file.isUnnamed, download.uploadBody == nil, ResumeData.canResume(download.originalRequest) else {
                return nil
            }
            return .hashing(file, into: ResumeData(
                url: url, originalRequest: download.originalRequest,
                entityTag: validators.entityTag, lastModified: validators.lastModified, offset: file.length,
                partialFile: file.url, sha256: "", expectedTotal: entityTotal))
        }
        guard let source else { return nil }
        // Still checking the partial file, which is as the resume data says or about to be emptied.
        if reopeningPartialFile { return .ready(source) }
        // Reopened, and not written to: no response yet, or an unrelated one.
        guard let partial = partialFile, partial.length > 0 else { return nil }
        var data = source
        data.offset = partial.length
        return .hashing(partial, into: data)
    }
}
