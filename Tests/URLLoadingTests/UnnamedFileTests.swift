import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// `DownloadTask.unnamedFileMode`: the body goes to an unnamed file (O_TMPFILE) that only the
/// consumer's link names (DL-02, DL-05, TT-04).
@Suite("Unnamed download files", .timeLimit(.minutes(2)))
struct UnnamedFileTests {
    static func inode(_ path: String) -> UInt64? {
        var status = stat()
        return stat(path, &status) == 0 ? UInt64(status.st_ino) : nil
    }

    /// How many of this process's descriptors are open on files in `directory` (an unnamed file's
    /// reads `<directory>/#<inode> (deleted)`).
    static func descriptors(into directory: URL) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: UnnamedFiles.descriptorDirectory)) ?? []
        return entries.filter { entry in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(UnnamedFiles.descriptorDirectory)/\(entry)")
            return target?.hasPrefix(directory.path + "/") == true
        }.count
    }

    /// Waits up to two seconds for `directory`'s files to be closed (a task lets go of its events
    /// after it completes).
    static func closedAll(in directory: URL) async throws -> Bool {
        for _ in 0..<40 where descriptors(into: directory) > 0 { try await Task.sleep(for: .milliseconds(50)) }
        return descriptors(into: directory) == 0
    }

    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : nil
    }

    /// A running download of `url` into an unnamed file (permissions `mode`) in `directory`, with its events.
    static func start(_ url: String, in directory: URL, mode: mode_t = 0o644) throws -> (DownloadTask, TaskEvents) {
        let task = try Fixture.session().downloadTask(with: Fixture.request(url))
        task.temporaryDirectory = directory
        task.unnamedFileMode = mode
        let events = task.events
        task.resume()
        return (task, events)
    }

    @Test("the body has no name while it arrives; the file handed out has the mode asked for and is linked into place")
    func linkedIntoPlace() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let destination = directory.url.appendingPathComponent("out.bin")
            // Five chunks of 64 KiB, 20 ms apart.
            let (task, events) = try Self.start(origin.url("/bytes/300000?pace_ms=20"), in: directory.url, mode: 0o640)
            var listedWhileReceiving: [String]?
            var handedOut: (path: String, inode: UInt64?, mode: mode_t?, contents: Data?, listed: [String])?
            for await event in events {
                switch event {
                case .progress(let progress) where progress.bytesReceived > 0 && listedWhileReceiving == nil:
                    listedWhileReceiving = try directory.contents()
                case .downloadFinished(let file):
                    handedOut = (file.path, Self.inode(file.path), Self.mode(file.path), try? Data(contentsOf: file), try directory.contents())
                    try UnnamedFiles.link(file, to: destination)
                default:
                    break
                }
            }
            #expect(listedWhileReceiving == [], "nothing in the directory while the body arrives")
            let handed = try #require(handedOut)
            #expect(UnnamedFiles.isUnnamed(URL(fileURLWithPath: handed.path)), "\(handed.path)")
            #expect(handed.listed == [], "still nameless when handed out")
            #expect(handed.mode == 0o640)
            #expect(handed.contents == Fixture.pattern(300_000))
            #expect(try directory.contents() == ["out.bin"])
            #expect(try Data(contentsOf: destination) == Fixture.pattern(300_000))
            #expect(Self.inode(destination.path) == handed.inode, "the destination is the file written, not a copy")
            // Closed once the consumer moved on: its descriptor no longer names that file.
            #expect(Self.inode(handed.path) != handed.inode)
            #expect(try await Self.closedAll(in: directory.url))
            #expect(task.fileLength == 300_000)
        }
    }

    /// An unnamed download (mode 0644) into `directory`, its file linked to `destination`: the link's error, if any.
    static func downloadAndLink(_ url: String, in directory: URL, to destination: URL) async throws -> TransferError? {
        let (_, events) = try start(url, in: directory)
        var linkError: TransferError?
        for await event in events {
            guard case .downloadFinished(let file) = event else { continue }
            do throws(TransferError) { try UnnamedFiles.link(file, to: destination) } catch { linkError = error }
        }
        return linkError
    }

    @Test("a link replaces a file at the destination in one step and leaves no temporary name")
    func replacesExistingFile() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let destination = directory.url.appendingPathComponent("out.bin")
            try Data("old contents".utf8).write(to: destination)
            #expect(try await Self.downloadAndLink(origin.url("/bytes/5000"), in: directory.url, to: destination) == nil)
            #expect(try Data(contentsOf: destination) == Fixture.pattern(5000))
            #expect(try directory.contents() == ["out.bin"])

            // A destination that cannot be replaced (a directory) is an error naming it, and nothing stays.
            let occupied = directory.url.appendingPathComponent("occupied")
            try FileManager.default.createDirectory(at: occupied, withIntermediateDirectories: false)
            let refused = try await Self.downloadAndLink(origin.url("/bytes/10"), in: directory.url, to: occupied)
            #expect(refused?.code == .cannotWriteToFile)
            #expect(refused?.message.contains(occupied.path) == true, "\(refused?.message ?? "")")
            #expect(try directory.contents().sorted() == ["occupied", "out.bin"])
        }
    }

    @Test("a cancelled unnamed download makes no resume data and leaves nothing; an unread one is closed too")
    func cancelledLeavesNothing() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let (task, events) = try Self.start(origin.url("/bytes/4000000?pace_ms=50"), in: directory.url)
            for await event in events {
                if case .progress(let progress) = event, progress.bytesReceived > 0 { break }
            }
            let resumeData = await task.cancelProducingResumeData()
            #expect(resumeData == nil, "nothing could find an unnamed partial file again")
            #expect(task.error?.code == .cancelled)
            #expect(try directory.contents() == [])
            #expect(try await Self.closedAll(in: directory.url))

            // Finished, but its consumer never read the hand-out.
            var unread: DownloadTask? = try Self.start(origin.url("/bytes/1000"), in: directory.url).0
            _ = await unread?.waitUntilCompleted()
            unread = nil
            #expect(try directory.contents() == [])
            #expect(try await Self.closedAll(in: directory.url), "the unread hand-out's file is closed with its task")
        }
    }
}
