import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A new session with a background identifier takes up the tasks the store holds, whether an earlier
/// session of this process or a killed process left them (BG-08, BG-09, BG-11, BG-13, BG-14, BG-24).
@Suite("Background sessions: taking tasks up again", .timeLimit(.minutes(4)))
struct BackgroundRejoinTests {
    private static let length = 600_000
    private static let stallOffset = 250_000

    @Test("a new session takes up every outstanding task under its identifier; the delegate hears their events, then the finish-events signal once (BG-08, BG-09, BG-11, BG-14)")
    func rejoinsStoredTasks() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let store = Background.store(in: directory)
            try store.claim()
            // A download that stopped at the stall, as a process that died there leaves it.
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.stallOffset)")
            let earlier = try Fixture.session()
            let stalled = try earlier.downloadTask(with: Fixture.request(url))
            stalled.temporaryDirectory = store.partialFileDirectory
            stalled.resume()
            try await Fixture.eventually(timeout: .seconds(90), "the stall") { stalled.progress.bytesReceived == Int64(Self.stallOffset) }
            let resumeData = try #require(await stalled.cancelProducingResumeData())
            let upload = directory.url.appendingPathComponent("report.csv")
            try Fixture.pattern(50_000).write(to: upload)
            let createdAt = Date()
            try store.save(BackgroundTaskRecord(
                taskIdentifier: 3, kind: .download, request: Fixture.request(url), resumeData: resumeData,
                taskDescription: "resumed", createdAt: createdAt))
            try store.save(BackgroundTaskRecord(
                taskIdentifier: 5, kind: .download, request: Fixture.request(origin.url("/bytes/3000")), createdAt: createdAt))
            try store.save(BackgroundTaskRecord(
                taskIdentifier: 8, kind: .upload, request: Fixture.request(origin.url("/echo"), method: "PUT"), uploadFile: upload,
                createdAt: createdAt))
            store.relinquish()
            // Not `resetStatistics()`: the route numbers requests per URI, and the continuation must
            // be the second request of its URI, not another first one that stalls again.
            let before = origin.requests.count

            let delegate = BackgroundEventsDelegate()
            let identifier = "rejoin-\(UUID().uuidString)"
            let session = try Session(configuration: Background.configuration(identifier, in: directory), delegate: delegate)
            defer { session.invalidateAndCancel() }
            #expect(session.rejoinedTasks.map(\.taskIdentifier) == [3, 5, 8])
            #expect(session.rejoinedTasks.map { $0 is UploadTask } == [false, false, true])
            #expect(session.rejoinedTasks.first?.taskDescription == "resumed")
            #expect(session.skippedBackgroundEntries.isEmpty)

            try await Fixture.eventually(timeout: .seconds(90), "the finish-events signal") { delegate.finishEventsCalls.withLock { $0 } > 0 }
            let entries = delegate.entries
            #expect(Set(delegate.completions()) == ["complete 3 ok", "complete 5 ok", "complete 8 ok"])
            // After every task's last event, and once.
            #expect(entries.last == "finishEvents")
            #expect(delegate.finishEventsCalls.withLock { $0 } == 1)
            #expect(entries.contains("resumed 3 at \(Self.stallOffset)"))
            let finished = delegate.finishedDownloads.withLock { $0 }
            #expect(finished[3] == Fixture.pattern(Self.length))
            #expect(finished[5] == Fixture.pattern(3000))
            let requests = origin.requests.dropFirst(before)
            #expect(requests.filter { $0.path.hasPrefix("/resumable/") }.map { $0.header("Range") } == ["bytes=\(Self.stallOffset)-"])
            #expect(requests.first { $0.path == "/echo" }?.bodyLength == 50_000)
            session.backgroundBook?.flush()
            #expect(Background.taskFiles(in: store) == [])
            // New tasks are numbered after the ones taken up.
            #expect(try session.downloadTask(with: Fixture.request(origin.url("/bytes/1"))).taskIdentifier == 9)
        }
    }

    @Test("a damaged entry is skipped and reported while the others are taken up (BG-08, BG-12)")
    func damagedEntryIsSkipped() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let store = Background.store(in: directory)
            try store.claim()
            try store.save(BackgroundTaskRecord(
                taskIdentifier: 2, kind: .download, request: Fixture.request(origin.url("/bytes/2000")), createdAt: Date()))
            try Data([0xff, 0x00, 0x7b]).write(to: store.directory.appendingPathComponent("tasks/1.json"))
            store.relinquish()

            let delegate = BackgroundEventsDelegate()
            let session = try Session(configuration: Background.configuration(in: directory), delegate: delegate)
            defer { session.invalidateAndCancel() }
            #expect(session.rejoinedTasks.map(\.taskIdentifier) == [2])
            #expect(session.skippedBackgroundEntries.count == 1)
            #expect(session.skippedBackgroundEntries.first?.entry.hasSuffix("tasks/1.json") == true)
            try await Fixture.eventually(timeout: .seconds(60), "the finish-events signal") { delegate.finishEventsCalls.withLock { $0 } > 0 }
            #expect(delegate.finishedDownloads.withLock { $0[2] } == Fixture.pattern(2000))
            session.backgroundBook?.flush()
            #expect(Background.taskFiles(in: store) == ["1.json.damaged"])
        }
    }

    @Test("a process killed (-9) mid-download: a new session in another process finishes the file from where it stopped, with Range (BG-13, BG-24, BG-08, BG-09)")
    func rejoinsAfterTheProcessWasKilled() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let storeDirectory = directory.url.appendingPathComponent("state", isDirectory: true)
            let output = directory.url.appendingPathComponent("download.bin")
            let identifier = "killed-\(UUID().uuidString)"
            // The body stops mid-way at the stall (a throttle at its slowest), so the child is killed
            // while downloading, with a known prefix on disk.
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.stallOffset)")

            let child = Process()
            child.executableURL = try BuiltExecutable.url(named: "ferry")
            child.arguments = ["get", "--background", identifier, "--background-dir", storeDirectory.path, url, "-o", output.path, "-s"]
            child.standardInput = FileHandle.nullDevice
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            let store = BackgroundTaskDirectory(directory: storeDirectory)
            try await Fixture.eventually(timeout: .seconds(120), "the child's resume data at the stall") {
                Background.record(1, in: store)?.resumeData?.offset == Int64(Self.stallOffset) || !child.isRunning
            }
            #expect(child.isRunning)
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal)
            #expect(!FileManager.default.fileExists(atPath: output.path))
            let record = try #require(Background.record(1, in: store))
            #expect(record.taskDescription == output.path)
            // The continuation is the URI's second request (past the stall); see `ResumableRoute`.
            let before = origin.requests.count

            let delegate = BackgroundEventsDelegate()
            let session = try Session(
                configuration: .background(identifier: identifier, store: store), delegate: delegate)
            defer { session.invalidateAndCancel() }
            #expect(session.rejoinedTasks.map(\.taskIdentifier) == [1])
            try await Fixture.eventually(timeout: .seconds(120), "the finish-events signal") { delegate.finishEventsCalls.withLock { $0 } > 0 }
            #expect(delegate.completions() == ["complete 1 ok"])
            #expect(delegate.finishedDownloads.withLock { $0[1] } == Fixture.pattern(Self.length))
            #expect(delegate.entries.contains("resumed 1 at \(Self.stallOffset)"))
            // Continued, not started over.
            let requests = Array(origin.requests.dropFirst(before))
            #expect(requests.count == 1)
            #expect(requests.first?.header("Range") == "bytes=\(Self.stallOffset)-")
            #expect(requests.first?.header("If-Range") == "\"resumable-\(Self.length)\"")
            session.backgroundBook?.flush()
            #expect(Background.taskFiles(in: store) == [])
            #expect(delegate.finishEventsCalls.withLock { $0 } == 1)
        }
    }
}
