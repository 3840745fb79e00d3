import Foundation

/// A background session's side of its store (BG-08, BG-12, BG-24): writes each task's record when it
/// starts, its resume data as the download goes on, and forgets it when the task completed; counts
/// the tasks taken up from the store until the last one's events were delivered (BG-09).
///
/// Every store call runs on one serial queue: in order (no snapshot written after the task's record
/// was removed can bring it back), and never on a loop thread, where a flush to disk would hold up
/// every other transfer of the loop. Only a task's first record is written while its caller waits,
/// since a task that cannot be kept must not run.
final class BackgroundTaskBook: Sendable {
    let settings: SessionConfiguration.Background
    private var store: any BackgroundTaskStore { settings.store }
    private let storeQueue = DispatchQueue(label: "ferry.background-store")

    private struct Records {
        var byTask: [Int: BackgroundTaskRecord] = [:]
        var completed: Set<Int> = []
    }

    /// Touched on `storeQueue` only.
    private let records = Locked(Records())

    private struct Delivery {
        /// Tasks taken up from the store whose last event the delegate has not heard yet.
        var rejoinedUndelivered: Set<Int> = []
        var finishEventsAnnounced = false
    }

    private let delivery = Locked(Delivery())

    init(settings: SessionConfiguration.Background) {
        self.settings = settings
    }

    /// Writes the record of a task that starts: a failure means it would not survive the process.
    func taskStarting(_ task: SessionTask) throws(TransferError) {
        let record = makeRecord(for: task)
        let failure = storeQueue.sync { () -> BackgroundTaskStoreError? in
            records.withLock { records -> BackgroundTaskStoreError? in
                guard !records.completed.contains(record.taskIdentifier) else { return nil }
                do throws(BackgroundTaskStoreError) {
                    try store.save(record)
                } catch {
                    return error
                }
                records.byTask[record.taskIdentifier] = record
                return nil
            }
        }
        if let failure {
            throw TransferError(
                .cannotWriteToFile, "cannot keep the background task in its store: \(failure.description)",
                failingURL: task.originalRequest.url)
        }
    }

    /// The download received more, or failed and will try again: what continues it from now on.
    /// A failed write keeps the older record, which continues from less.
    func resumeDataChanged(_ resumeData: ResumeData, of task: SessionTask) {
        let kept = BackgroundTaskRecord.withoutSecrets(resumeData)
        update(task.taskIdentifier) { $0.resumeData = kept }
    }

    /// The caller changed something the record holds (`taskDescription`).
    func taskChanged(_ task: SessionTask) {
        let description = task.taskDescription
        update(task.taskIdentifier) { $0.taskDescription = description }
    }

    private func update(_ identifier: Int, _ change: @escaping @Sendable (inout BackgroundTaskRecord) -> Void) {
        storeQueue.async { [self] in
            records.withLock { records in
                guard !records.completed.contains(identifier), var record = records.byTask[identifier] else { return }
                change(&record)
                guard record != records.byTask[identifier], (try? store.save(record)) != nil else { return }
                records.byTask[identifier] = record
            }
        }
    }

    /// The task completed (succeeded, failed for good, or was cancelled): it is no longer outstanding.
    func taskCompleted(_ task: SessionTask) {
        let identifier = task.taskIdentifier
        storeQueue.async { [self] in
            records.withLock { records in
                records.completed.insert(identifier)
                guard records.byTask.removeValue(forKey: identifier) != nil else { return }
                store.removeRecord(taskIdentifier: identifier)
            }
        }
    }

    /// Returns once every store call asked so far has run.
    func flush() {
        storeQueue.sync {}
    }

    // MARK: - Retries (BG-06)

    /// How long to wait before a task whose resource deadline is `deadline` tries again after
    /// `error`, or nil when it fails now.
    func retryDelay(after error: TransferError, failedAttempts: Int, deadline: Date) -> TimeInterval? {
        settings.retry.retryDelay(after: error, failedAttempts: failedAttempts, deadline: deadline)
    }

    // MARK: - Finish-events signal (BG-09)

    func noteRejoined(_ identifiers: [Int]) {
        delivery.withLock { $0.rejoinedUndelivered.formUnion(identifiers) }
    }

    /// A task's last event reached the delegate; true exactly once: when it was the last of the tasks
    /// taken up from the store.
    func eventsDelivered(forTask identifier: Int) -> Bool {
        delivery.withLock { state in
            guard state.rejoinedUndelivered.remove(identifier) != nil, state.rejoinedUndelivered.isEmpty,
                !state.finishEventsAnnounced
            else { return false }
            state.finishEventsAnnounced = true
            return true
        }
    }

    // MARK: - Records

    private func makeRecord(for task: SessionTask) -> BackgroundTaskRecord {
        var kind = BackgroundTaskRecord.Kind.download
        var uploadFile: URL?
        var resumeData: ResumeData?
        var temporaryDirectory: URL?
        if let upload = task as? UploadTask, case .file(let file) = upload.body {
            kind = .upload
            uploadFile = file.standardizedFileURL
        } else if let download = task as? DownloadTask {
            resumeData = download.continuationSource
            if let directory = download.temporaryDirectory, directory.standardizedFileURL != store.partialFileDirectory.standardizedFileURL {
                temporaryDirectory = directory.standardizedFileURL
            }
        }
        return BackgroundTaskRecord(
            taskIdentifier: task.taskIdentifier, kind: kind, request: task.originalRequest, uploadFile: uploadFile,
            resumeData: resumeData, temporaryDirectory: temporaryDirectory, taskDescription: task.taskDescription,
            createdAt: task.backgroundCreatedAt ?? Date())
    }
}
