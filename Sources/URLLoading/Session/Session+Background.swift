import Foundation

/// A background session's tasks across processes (BG-06, BG-08, BG-24): kept in the store from their
/// first start, their resume data written as they go, and taken up again by the next session of the
/// same identifier.
extension Session {
    /// Called when a task starts for the first time. In a background session its record is written
    /// first: the error when that fails (the task would not survive the process, so it does not run).
    func startingBackgroundTask(_ task: SessionTask) -> TransferError? {
        guard let backgroundBook else { return nil }
        task.markBackgroundStart(at: Date())
        do throws(TransferError) {
            try backgroundBook.taskStarting(task)
        } catch {
            return error
        }
        if let download = task as? DownloadTask { keepSavingResumeData(of: download, in: backgroundBook) }
        return nil
    }

    /// Writes the download's resume data every `resumeDataInterval` while it receives bytes, so a
    /// process killed mid-download continues from at most that far back (DL-12, BG-24). Stops once
    /// the task completed; a snapshot taken then is dropped by the book.
    private func keepSavingResumeData(of download: DownloadTask, in book: BackgroundTaskBook) {
        let interval = Duration.milliseconds(Int64((book.settings.resumeDataInterval * 1000).rounded(.up)))
        Task { [weak download] in
            var savedAt: Int64?
            while true {
                try? await Task.sleep(for: interval)
                guard let download, download.state != .completed else { return }
                let received = download.progress.bytesReceived
                guard received > 0, received != savedAt, let resumeData = await download.resumeDataSnapshot() else { continue }
                savedAt = received
                book.resumeDataChanged(resumeData, of: download)
            }
        }
    }

    /// Takes up the outstanding tasks the store holds (BG-08, BG-11, BG-13): each keeps its identifier
    /// and starts again at once, a download from its resume data when the origin still has the same
    /// entity (else from byte 0, as any resumed download), its events going to the delegate.
    func rejoinOutstandingTasks(with book: BackgroundTaskBook) {
        let contents = book.settings.store.loadRecords()
        var skipped = contents.skipped
        var rejoined: [SessionTask] = []
        for record in contents.records {
            if tasks.contains(where: { $0.taskIdentifier == record.taskIdentifier }) {
                skipped.append(BackgroundTaskStoreProblem(
                    entry: "task \(record.taskIdentifier)", reason: "a second record of the same task identifier"))
                continue
            }
            rejoined.append(adopt(identifier: record.taskIdentifier) { identifier in makeTask(from: record, identifier: identifier) })
        }
        recordSkippedBackgroundEntries(skipped)
        book.noteRejoined(rejoined.map(\.taskIdentifier))
        for task in rejoined {
            startDelegateDriver(for: task)
            task.resume()
        }
    }

    private func makeTask(from record: BackgroundTaskRecord, identifier: Int) -> SessionTask {
        let task: SessionTask
        switch record.kind {
        case .upload:
            // A record names its file (checked when it was read).
            let file = record.uploadFile ?? URL(fileURLWithPath: "/")
            let delivery: DataTask.BodyDelivery = delegate?.receivesTaskEvents == true ? .stream : .collect
            task = UploadTask(session: self, identifier: identifier, request: record.request, body: .file(file), bodyDelivery: delivery)
        case .download:
            let download = DownloadTask(session: self, identifier: identifier, request: record.request, resumingFrom: record.resumeData)
            download.temporaryDirectory = record.temporaryDirectory ?? backgroundBook?.settings.store.partialFileDirectory
            download.extendsResumeDataOverPartialFile = record.resumeData != nil
            task = download
        }
        task.restoreBackgroundRecord(description: record.taskDescription, createdAt: record.createdAt)
        return task
    }

    /// What a background session refuses to make (BG-04), or nil: a data task (TT-03), an upload
    /// whose body is not a file and a download that sends a body (UP-13), anything but http(s).
    func backgroundRefusal(for task: SessionTask) -> TransferError? {
        guard backgroundBook != nil else { return nil }
        let url = task.originalRequest.url
        switch task {
        case let upload as UploadTask: return BackgroundRestrictions.refusal(forUploadOf: upload.body, to: url)
        case is DataTask: return BackgroundRestrictions.dataTaskRefusal(for: url)
        case let download as DownloadTask where download.uploadBody != nil:
            return BackgroundRestrictions.uploadingDownloadRefusal(for: url)
        default: return BackgroundRestrictions.refusal(for: url)
        }
    }

    /// Downloads of a background session write where the store keeps them, which outlives the
    /// process, unless the caller names another directory before `resume()`.
    func prepareBackgroundDownload(_ task: DownloadTask) {
        guard let backgroundBook else { return }
        task.temporaryDirectory = backgroundBook.settings.store.partialFileDirectory
    }
}
