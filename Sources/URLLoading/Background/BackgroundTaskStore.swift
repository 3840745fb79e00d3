import Foundation

/// Where a background session keeps its outstanding tasks between processes (BG-08, BG-12, BG-24):
/// one `BackgroundTaskRecord` per task, written when the task starts, updated with each new resume
/// data, and removed once the task completed. `BackgroundTaskDirectory` keeps them in files; the
/// gateway or an app may keep them elsewhere.
///
/// A session calls these from several threads; each call stands alone. Writes must be atomic: a
/// process killed in the middle of `save` leaves the previous record or the new one, never a mix.
public protocol BackgroundTaskStore: AnyObject, Sendable {
    /// Where the session's downloads write their files unless a task names another directory. It
    /// must outlive the process (a system's temporary directory may be emptied at boot).
    var partialFileDirectory: URL { get }

    /// Makes this store the session's alone until `relinquish()` or the process's end, creating what
    /// it needs: two processes taking up the same tasks would download the same files twice. Throws
    /// when another process holds it.
    func claim() throws(BackgroundTaskStoreError)
    func relinquish()

    /// Every outstanding task's record, by task identifier. A record that cannot be read is skipped
    /// and reported in `skipped`; it must not come back in later loads as if it were new.
    func loadRecords() -> BackgroundTaskStoreContents
    /// Replaces the record of `record.taskIdentifier`, or adds it.
    func save(_ record: BackgroundTaskRecord) throws(BackgroundTaskStoreError)
    /// Forgets a task's record; nothing happens when there is none.
    func removeRecord(taskIdentifier: Int)
}

/// What `BackgroundTaskStore.loadRecords()` found.
public struct BackgroundTaskStoreContents: Sendable, Equatable {
    public var records: [BackgroundTaskRecord]
    /// Entries that could not be taken up, each with the reason.
    public var skipped: [BackgroundTaskStoreProblem]

    public init(records: [BackgroundTaskRecord], skipped: [BackgroundTaskStoreProblem] = []) {
        self.records = records
        self.skipped = skipped
    }
}

/// An entry of a store that was skipped: where it is (a file, a row) and why.
public struct BackgroundTaskStoreProblem: Sendable, Equatable, CustomStringConvertible {
    public var entry: String
    public var reason: String

    public init(entry: String, reason: String) {
        self.entry = entry
        self.reason = reason
    }

    public var description: String { "skipped background task entry \(entry): \(reason)" }
}

public struct BackgroundTaskStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
