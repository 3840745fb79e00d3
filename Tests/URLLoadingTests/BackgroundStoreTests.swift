import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// What a background session keeps of its tasks, and how (BG-12, BG-24, SES-04).
@Suite("Background sessions: the task store", .timeLimit(.minutes(2)))
struct BackgroundStoreTests {
    private static let length = 400_000
    private static let stallOffset = 150_000

    @Test("a running download's record holds its request without secrets, its latest resume data and a private file; it goes once the task completes (BG-12, BG-24)")
    func recordFollowsTheTask() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let store = Background.store(in: directory)
            let session = try Session(configuration: Background.configuration(in: directory))
            defer { session.invalidateAndCancel() }
            var request = Fixture.request(origin.url("/resumable/\(Self.length)?stall_at=\(Self.stallOffset)"))
            request.headers["Authorization"] = "Bearer very-secret-token"
            request.headers["Cookie"] = "session=also-secret"
            request.headers["X-Job"] = "nightly"
            let task = try session.downloadTask(with: request)
            task.taskDescription = "/srv/out/file.bin"
            // Made, not started: not outstanding yet.
            #expect(Background.record(task.taskIdentifier, in: store) == nil)
            task.resume()

            try await Fixture.eventually(timeout: .seconds(90), "resume data at the stall in the record") {
                Background.record(task.taskIdentifier, in: store)?.resumeData?.offset == Int64(Self.stallOffset)
            }
            let record = try #require(Background.record(task.taskIdentifier, in: store))
            #expect(record.kind == .download)
            #expect(record.taskDescription == "/srv/out/file.bin")
            #expect(record.request.url == request.url)
            #expect(record.request.headers["X-Job"] == "nightly")
            #expect(record.request.headers["Authorization"] == nil)
            #expect(record.request.headers["Cookie"] == nil)
            let resumeData = try #require(record.resumeData)
            #expect(resumeData.originalRequest.headers["Authorization"] == nil)
            #expect(resumeData.entityTag == "\"resumable-\(Self.length)\"")
            // The partial file lives in the store, not in a temporary directory that may be emptied.
            #expect(resumeData.partialFile.deletingLastPathComponent().standardizedFileURL.path == store.partialFileDirectory.standardizedFileURL.path)
            #expect(try Data(contentsOf: resumeData.partialFile).prefix(Self.stallOffset) == Fixture.pattern(Self.stallOffset))

            let file = store.directory.appendingPathComponent("tasks/\(task.taskIdentifier).json")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains("very-secret-token"))
            #expect(!text.contains("also-secret"))
            #expect(Background.mode(of: file) == 0o600)
            #expect(Background.mode(of: store.directory) == 0o700)
            // Written atomically: no half-written temporary files are left beside the records.
            #expect(Background.taskFiles(in: store) == ["\(task.taskIdentifier).json"])

            task.cancel()
            await task.waitUntilCompleted()
            session.backgroundBook?.flush()
            #expect(Background.taskFiles(in: store) == [])
        }
    }

    @Test("a download that completes leaves no record, and its file is handed over from the store's directory (BG-12)")
    func completedTaskLeavesNothing() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let store = Background.store(in: directory)
            let delegate = BackgroundEventsDelegate()
            let session = try Session(configuration: Background.configuration(in: directory), delegate: delegate)
            defer { session.invalidateAndCancel() }
            let task = try session.downloadTask(with: Fixture.request(origin.url("/bytes/70000")))
            #expect(task.temporaryDirectory?.standardizedFileURL.path == store.partialFileDirectory.standardizedFileURL.path)
            task.resume()
            try await Fixture.eventually(timeout: .seconds(60), "the download completed") { !delegate.completions().isEmpty }
            #expect(delegate.completions() == ["complete \(task.taskIdentifier) ok"])
            #expect(delegate.finishedDownloads.withLock { $0[task.taskIdentifier] } == Fixture.pattern(70000))
            session.backgroundBook?.flush()
            #expect(Background.taskFiles(in: store) == [])
            // Tasks made in this session are not taken-up ones: no finish-events signal (BG-09).
            #expect(delegate.finishEventsCalls.withLock { $0 } == 0)
            #expect(session.rejoinedTasks.isEmpty)
        }
    }

    @Test("records round-trip through JSON; a damaged or foreign entry is set aside and reported, never a crash (BG-12)")
    func damagedEntriesAreSkipped() throws {
        let directory = try TemporaryDirectory()
        let store = Background.store(in: directory)
        try store.claim()
        defer { store.relinquish() }
        let upload = BackgroundTaskRecord(
            taskIdentifier: 4, kind: .upload, request: Fixture.request("https://example.com/put", method: "PUT"),
            uploadFile: URL(fileURLWithPath: "/srv/in/report.csv"), taskDescription: "nightly report",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        try store.save(upload)
        let tasks = store.directory.appendingPathComponent("tasks")
        try Data("{ not json".utf8).write(to: tasks.appendingPathComponent("5.json"))
        // Well-formed, but no background task may fetch an ftp URL (BG-04).
        var ftp = upload
        ftp.taskIdentifier = 6
        ftp.kind = .download
        ftp.uploadFile = nil
        ftp.request = Fixture.request("ftp://example.com/file")
        try ftp.jsonData().write(to: tasks.appendingPathComponent("6.json"))
        // A record under another task's name.
        try upload.jsonData().write(to: tasks.appendingPathComponent("7.json"))

        let contents = store.loadRecords()
        #expect(contents.records == [upload])
        #expect(contents.skipped.map { URL(fileURLWithPath: $0.entry).lastPathComponent } == ["5.json", "6.json", "7.json"])
        #expect(contents.skipped.allSatisfy { $0.description.contains("skipped background task entry") })
        #expect(contents.skipped[1].reason.contains("http and https"))
        // Set aside: reported once, kept for a person to look at.
        #expect(Background.taskFiles(in: store) == ["4.json", "5.json.damaged", "6.json.damaged", "7.json.damaged"])
        #expect(store.loadRecords().skipped.isEmpty)
    }

    @Test("a second claim of a store's directory fails while it is held, in this process or another (BG-23)")
    func storeIsExclusive() throws {
        let directory = try TemporaryDirectory()
        let first = Background.store(in: directory)
        let second = Background.store(in: directory)
        try first.claim()
        let error = #expect(throws: BackgroundTaskStoreError.self) { try second.claim() }
        #expect(error?.description.contains("in use") == true)
        first.relinquish()
        try second.claim()
        second.relinquish()
    }

    /// A child that another thread is spawning holds every descriptor, and so the lock, until its
    /// exec: a lock released a moment after the claim began is taken, not reported as in use.
    @Test("a claim waits out a lock that is released a moment later (BG-23)")
    func claimWaitsOutABriefHold() throws {
        let directory = try TemporaryDirectory()
        let first = Background.store(in: directory)
        let second = Background.store(in: directory)
        try first.claim()
        // Released from a thread of its own: the dispatch pool, which a loaded test run can keep
        // busy, once delayed the release past the claim's whole grace.
        Thread {
            Thread.sleep(forTimeInterval: 0.2)
            first.relinquish()
        }.start()
        try second.claim()
        second.relinquish()
    }
}
