import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// ftp downloads continue where they stopped (REST), with the size (SIZE) and modification time
/// (MDTM) the server reports as their validators: when either changed, the download starts over
/// from byte 0 rather than append another version (DL-07, DL-09, DL-10, PR-01). Against a real FTP
/// server (pyftpdlib).
@Suite("Resume data: ftp", .serialized, .timeLimit(.minutes(2)))
struct FTPResumeTests {
    static let length = 200_000
    static let modified = Date(timeIntervalSince1970: 1_600_000_000)
    static let modifiedText = RemoteFileFacts.httpDate(secondsSince1970: 1_600_000_000)

    /// Skips (outside CI) on a machine without pyftpdlib.
    static func server(files: [String: Data], sendLimit: Int? = nil, throttledDownloads: Int? = nil) throws -> FTPServer? {
        try #require(FTPServer.isAvailable || ProcessInfo.processInfo.environment["CI"] == nil,
                     "python3-pyftpdlib must be installed in CI (scripts/install-deps)")
        guard FTPServer.isAvailable else { return nil }
        let server = try FTPServer.start(files: files, sendLimit: sendLimit, throttledDownloads: throttledDownloads)
        for name in files.keys { try server.setModificationTime(of: name, to: modified) }
        return server
    }

    /// Resume data as a killed process would have left it: `prefix` in the partial file.
    static func resumeData(
        _ server: FTPServer, prefix: Data, size: Int64, lastModified: String?, in directory: TemporaryDirectory
    ) throws -> ResumeData {
        let request = Fixture.request(server.url("file.bin"))
        let partialFile = directory.url.appendingPathComponent("partial.bin")
        try prefix.write(to: partialFile)
        return ResumeData(
            url: request.url, originalRequest: request, entityTag: nil, lastModified: lastModified, offset: Int64(prefix.count),
            partialFile: partialFile, sha256: Resume.sha256(prefix), expectedTotal: size)
    }

    @Test("an ftp download paused midway gives resume data holding SIZE and MDTM; continuing it fetches only the rest (REST) (DL-07, DL-09, PR-01)")
    func pauseAndContinue() async throws {
        let body = Fixture.pattern(Self.length)
        // The first download takes about 50 s for the whole file: the pause must land midway even
        // when a busy test run leaves this test's polling task waiting many seconds for a thread,
        // while curl's own thread goes on downloading. The continuation runs at full speed.
        guard let server = try Self.server(files: ["file.bin": body], sendLimit: 4_096, throttledDownloads: 1) else { return }
        defer { server.stop() }
        let session = try Fixture.session()
        let directory = try TemporaryDirectory()
        let first = try session.downloadTask(with: Fixture.request(server.url("file.bin")))
        first.temporaryDirectory = directory.url
        first.resume()
        try await Fixture.eventually("some bytes") { first.progress.bytesReceived > 0 }
        let resumeData = try #require(await first.cancelProducingResumeData())
        #expect(resumeData.expectedTotal == Int64(Self.length))
        #expect(resumeData.lastModified == Self.modifiedText)
        #expect(resumeData.offset > 0 && resumeData.offset < Int64(Self.length))
        #expect(try Data(contentsOf: resumeData.partialFile) == body.prefix(Int(resumeData.offset)))

        let second = try session.downloadTask(withResumeData: resumeData)
        second.computesSHA256 = true
        let outcome = await Resume.run(second)
        #expect(outcome.error == nil)
        #expect(outcome.resumptions == [.init(offset: resumeData.offset, expectedTotal: Int64(Self.length))])
        #expect(second.resumeOffset == resumeData.offset)
        #expect(outcome.contents == body)
        #expect(second.sha256 == Resume.sha256(body))
    }

    @Test("resume data that still fits the file continues at its offset, and a partial file that is already whole completes with nothing fetched (DL-09)",
          arguments: [50_000, length])
    func continuesWhenTheFileIsTheSame(_ offset: Int) async throws {
        let body = Fixture.pattern(Self.length)
        guard let server = try Self.server(files: ["file.bin": body]) else { return }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let resumeData = try Self.resumeData(
            server, prefix: body.prefix(offset), size: Int64(Self.length), lastModified: Self.modifiedText, in: directory)
        let task = try Fixture.session().downloadTask(withResumeData: resumeData)
        task.computesSHA256 = true
        let outcome = await Resume.run(task)
        #expect(outcome.error == nil)
        #expect(outcome.resumptions == [.init(offset: Int64(offset), expectedTotal: Int64(Self.length))])
        #expect(outcome.contents == body)
        #expect(task.sha256 == Resume.sha256(body))
    }

    enum Change: String, CaseIterable, Sendable {
        /// The file has another size than the resume data recorded.
        case size
        /// The same size, modified at another time.
        case modificationTime
        /// Shorter than the partial file: curl refuses the offset (REST past the end).
        case shorterThanThePartialFile
    }

    @Test("the ftp file changed since the resume data was made: the partial file is dropped and the download starts over from byte 0, never a mix (DL-10)",
          arguments: Change.allCases)
    func startsOverWhenTheFileChanged(_ change: Change) async throws {
        let current = Fixture.pattern(Self.length, from: 9)
        guard let server = try Self.server(files: ["file.bin": current]) else { return }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let older = Fixture.pattern(300_000)
        let resumeData: ResumeData
        switch change {
        case .size:
            resumeData = try Self.resumeData(
                server, prefix: older.prefix(50_000), size: 300_000, lastModified: Self.modifiedText, in: directory)
        case .modificationTime:
            resumeData = try Self.resumeData(
                server, prefix: older.prefix(50_000), size: Int64(Self.length),
                lastModified: RemoteFileFacts.httpDate(secondsSince1970: 1_500_000_000), in: directory)
        case .shorterThanThePartialFile:
            resumeData = try Self.resumeData(
                server, prefix: older.prefix(250_000), size: 300_000, lastModified: Self.modifiedText, in: directory)
        }
        let task = try Fixture.session().downloadTask(withResumeData: resumeData)
        task.computesSHA256 = true
        let outcome = await Resume.run(task)
        #expect(outcome.error == nil)
        #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(Self.length))])
        #expect(outcome.contents == current)
        #expect(task.sha256 == Resume.sha256(current))
    }

    @Test("HTTP dates for MDTM are written as RFC 9110's IMF-fixdate")
    func httpDates() {
        #expect(RemoteFileFacts.httpDate(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(RemoteFileFacts.httpDate(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }
}
