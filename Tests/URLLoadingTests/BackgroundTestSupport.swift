import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Helpers for the background session tests.
enum Background {
    /// A background configuration whose store is `store` inside `directory`, retrying and saving
    /// resume data quickly (the defaults, 1 s, would only make the tests slow). Each test uses an
    /// identifier of its own: two live sessions may not share one (BG-23), and tests run in parallel.
    static func configuration(
        _ identifier: String = "test-\(UUID().uuidString)", in directory: TemporaryDirectory,
        _ configure: (inout SessionConfiguration) -> Void = { _ in }
    ) -> SessionConfiguration {
        var configuration = SessionConfiguration.background(identifier: identifier, store: store(in: directory))
        configuration.background?.retry = BackgroundRetryPolicy(initialDelay: 0.05, maximumDelay: 0.2)
        configuration.background?.resumeDataInterval = 0.05
        configure(&configuration)
        return configuration
    }

    static func store(in directory: TemporaryDirectory) -> BackgroundTaskDirectory {
        BackgroundTaskDirectory(directory: directory.url.appendingPathComponent("store", isDirectory: true))
    }

    /// The record of task `identifier` as the store holds it now, read without touching the store
    /// (a load would set damaged files aside); nil when there is none.
    static func record(_ identifier: Int, in store: BackgroundTaskDirectory) -> BackgroundTaskRecord? {
        let file = store.directory.appendingPathComponent("tasks/\(identifier).json")
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? BackgroundTaskRecord(jsonData: data)
    }

    /// Names in the store's task directory (records, and anything set aside).
    static func taskFiles(in store: BackgroundTaskDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store.directory.appendingPathComponent("tasks").path)) ?? []).sorted()
    }

    static func mode(of url: URL) -> Int? {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return nil }
        return Int(status.st_mode & 0o777)
    }
}

/// Records what a background session's delegate hears; asked to refuse redirects and not to cache,
/// which a background session must never ask it (RD-07, CA-11).
final class BackgroundEventsDelegate: SessionDelegate {
    let log = Locked<[String]>([])
    let finishedDownloads = Locked<[Int: Data]>([:])
    let redirectQuestions = Locked(0)
    let cacheQuestions = Locked(0)
    let finishEventsCalls = Locked(0)

    var entries: [String] { log.withLock { $0 } }
    private func record(_ entry: String) { log.withLock { $0.append(entry) } }

    func completions() -> [String] { entries.filter { $0.hasPrefix("complete") } }

    func session(_ session: Session, task: SessionTask, willPerformRedirection response: TransferResponse,
                 newRequest: TransferRequest) async -> RedirectDisposition {
        redirectQuestions.withLock { $0 += 1 }
        return .refuse
    }

    func session(_ session: Session, dataTask: DataTask, willCacheResponse proposed: CachedResponse) async -> CachedResponse? {
        cacheQuestions.withLock { $0 += 1 }
        return nil
    }

    func session(_ session: Session, task: SessionTask, didRedirectTo request: TransferRequest, from response: TransferResponse) async {
        record("redirected \(task.taskIdentifier) \(request.url.path)")
    }

    func session(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                 expectedTotalBytes: Int64?) async {
        record("resumed \(downloadTask.taskIdentifier) at \(fileOffset)")
    }

    func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) async {
        // Read before the entry: tests wait for entries, then look at the bytes.
        let data = try? Data(contentsOf: location)
        finishedDownloads.withLock { $0[downloadTask.taskIdentifier] = data }
        record("finished \(downloadTask.taskIdentifier)")
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) async {
        record("complete \(task.taskIdentifier) \(error?.code.rawValue ?? "ok")")
    }

    func sessionDidFinishEvents(forBackgroundSession session: Session) async {
        finishEventsCalls.withLock { $0 += 1 }
        record("finishEvents")
    }
}
