import Foundation

/// A download's resume data on the loop: reopening the partial file it continues (DL-08) and
/// snapshots of what it wrote so far (DL-07, DL-12).
extension TaskTransfer {
    /// Checks and reopens the partial file on another thread (it reads up to `offset` bytes, which
    /// must not hold up the loop's other transfers), then starts the first hop here.
    func reopenPartialFile(of resumeData: ResumeData) {
        resumption.reopeningPartialFile = true
        let prefix = role.download?.temporaryFilePrefix ?? DownloadFile.defaultPrefix
        let digesting = role.download?.computesSHA256 ?? false
        let extends = role.download?.extendsResumeDataOverPartialFile ?? false
        DispatchQueue.global().async { [self] in
            let outcome: Result<DownloadFile, TransferError>
            // Taken up from a background store after the process died: its bytes past the snapshot count too.
            let resumeData = extends ? resumeData.coveringWholePartialFile() : resumeData
            do throws(TransferError) {
                outcome = .success(try DownloadFile.reopen(resumeData, prefix: prefix, digesting: digesting).file)
            } catch {
                outcome = .failure(error)
            }
            post { $0.partialFileReopened(outcome, resumeData: resumeData) }
        }
    }

    private func partialFileReopened(_ outcome: Result<DownloadFile, TransferError>, resumeData: ResumeData) {
        resumption.reopeningPartialFile = false
        let file: DownloadFile
        switch outcome {
        case .failure(let error):
            finish(error: error)
            return
        case .success(let reopened):
            file = reopened
        }
        guard !machine.isFinished else {
            // Cancelled meanwhile: the file stays only if the cancellation handed out resume data.
            if task.error?.resumeData != nil { file.keep() } else { file.remove() }
            return
        }
        resumption.partialFile = file
        if file.length > 0 {
            resumption.requestedOffset = file.length
            request = ResumeData.continuing(
                request, at: file.length, entityTag: resumeData.entityTag, lastModified: resumeData.lastModified)
            task.setCurrentRequest(request)
        }
        startHop()
    }

    /// On the loop: the resume data for what the file holds now, for `DownloadTask.resumeDataSnapshot()`,
    /// given to `reply` once the file's prefix is hashed (on whichever thread that happens).
    func resumeDataSnapshot(reply: @escaping @Sendable (ResumeData?) -> Void) {
        guard !machine.isFinished else {
            reply(nil)
            return
        }
        withCurrentResumeData { _, resumeData in reply(resumeData) }
    }

    /// Gives `use` what continues this download from the bytes written so far, or nil when it cannot
    /// be continued: at once when nothing needs hashing, else on the loop once the partial file's
    /// prefix is hashed off it (nil when it could not be read back).
    func withCurrentResumeData(_ use: @escaping @Sendable (TaskTransfer, ResumeData?) -> Void) {
        // The file of a multipart response holds its latest part only, at no offset of any entity.
        guard let download = role.download, multipart == nil else {
            use(self, nil)
            return
        }
        learnLateRemoteFileFacts()
        switch resumption.resumeData(written: sink.file, of: download, url: hopResponse?.url ?? request.url) {
        case nil:
            use(self, nil)
        case .ready(let resumeData)?:
            use(self, resumeData)
        case .hashing(let file, let draft)?:
            file.sha256 { [self] digest in
                post { transfer in
                    var resumeData = draft
                    resumeData.sha256 = digest ?? ""
                    use(transfer, digest == nil ? nil : resumeData)
                }
            }
        }
    }

    /// An ftp body can start before curl has read the file's size from the control connection (a
    /// busy machine reads the data connection first): what curl knows now fills in what the first
    /// byte lacked, so that such a download can still be continued.
    private func learnLateRemoteFileFacts() {
        guard let known = resumption.remoteFile, known.size == nil, sink.file != nil else { return }
        let facts = RemoteFileFacts(
            announcedLength: curl.announcedContentLength, fileTime: curl.remoteFileTime,
            resumedAt: resumption.requestedOffset, bodyStarted: true)
        resumption.learnRemoteFile(facts)
    }
}
