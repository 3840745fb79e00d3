import Foundation

/// A download's resume data on the loop: reopening the partial file it continues (DL-08) and
/// snapshots of what it wrote so far (DL-07, DL-12).
extension TaskTransfer {
    /// Checks and reopens the partial file on another thread (it reads up to `offset` bytes, which
    /// must not hold up the loop's other transfers), then starts the first hop here.
    func reopenPartialFile(of resumeData: ResumeData) {
        resumption.reopeningPartialFile = true
        let prefix = role.download?.temporaryFilePrefix ?? DownloadFile.defaultPrefix
        DispatchQueue.global().async { [self] in
            let outcome: Result<DownloadFile, TransferError>
            do throws(TransferError) {
                outcome = .success(try DownloadFile.reopen(resumeData, prefix: prefix).file)
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

    /// On the loop: the resume data for what the file holds now, for `DownloadTask.resumeDataSnapshot()`.
    func resumeDataSnapshot() -> ResumeData? {
        machine.isFinished ? nil : currentResumeData()
    }

    /// What continues this download from the bytes written so far, or nil when it cannot be continued.
    func currentResumeData() -> ResumeData? {
        guard let download = role.download else { return nil }
        learnLateRemoteFileFacts()
        return resumption.resumeData(written: sink.file, of: download, url: hopResponse?.url ?? request.url)
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
