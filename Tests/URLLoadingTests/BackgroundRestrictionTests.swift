import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// What a background session refuses, and that only one session of an identifier lives at a time
/// (BG-04, TT-03, UP-13, RD-07, CA-11, BG-22, BG-23, SES-13).
@Suite("Background sessions: restrictions", .timeLimit(.minutes(2)))
struct BackgroundRestrictionTests {
    private static let url = "http://127.0.0.1:9/file.bin"

    @Test("a background session makes no data task: a clear invalidRequest error, not a crash (TT-03, BG-04)")
    func noDataTasks() async throws {
        let directory = try TemporaryDirectory()
        let session = try Session(configuration: Background.configuration(in: directory))
        defer { session.invalidateAndCancel() }
        let plain = #expect(throws: TransferError.self) { try session.dataTask(with: Fixture.request(Self.url)) }
        #expect(plain?.code == .invalidRequest)
        #expect(plain?.message.contains("download task") == true)
        let streaming = #expect(throws: TransferError.self) { try session.streamingDataTask(with: Fixture.request(Self.url)) }
        #expect(streaming?.code == .invalidRequest)
        // The async convenience makes a data task too.
        await #expect(throws: TransferError.self) { _ = try await session.data(for: Fixture.request(Self.url)) }
        #expect(session.tasks.isEmpty)
    }

    @Test("a background session transfers only http and https (BG-04)",
          arguments: ["ftp://127.0.0.1:9/file.bin", "file:///etc/hostname", "data:,hello"])
    func onlyHTTP(_ url: String) throws {
        let directory = try TemporaryDirectory()
        let session = try Session(configuration: Background.configuration(in: directory))
        defer { session.invalidateAndCancel() }
        let error = #expect(throws: TransferError.self) { try session.downloadTask(with: Fixture.request(url)) }
        #expect(error?.code == .unsupportedURL)
        #expect(error?.message.contains("http and https") == true)
        let upload = #expect(throws: TransferError.self) {
            try session.uploadTask(with: Fixture.request(url), from: .file(URL(fileURLWithPath: "/etc/hostname")))
        }
        #expect(upload?.code == .unsupportedURL)
        // Both https and http pass.
        _ = try session.downloadTask(with: Fixture.request("https://127.0.0.1:9/file.bin"))
        _ = try session.downloadTask(with: Fixture.request(Self.url))
    }

    @Test("a background session uploads only from a file; Data, a stream or a download with a body fail clearly (UP-13, BG-04)")
    func uploadsOnlyFromFiles() throws {
        let directory = try TemporaryDirectory()
        let session = try Session(configuration: Background.configuration(in: directory))
        defer { session.invalidateAndCancel() }
        let request = Fixture.request(Self.url, method: "PUT")
        let fromData = #expect(throws: TransferError.self) { try session.uploadTask(with: request, from: .data(Data("x".utf8))) }
        #expect(fromData?.code == .invalidRequest)
        #expect(fromData?.message.contains("only from a file") == true)
        let stream = UploadBody.Stream(AsyncStream<Data> { $0.finish() })
        let fromStream = #expect(throws: TransferError.self) { try session.uploadTask(with: request, from: .stream(stream)) }
        #expect(fromStream?.code == .invalidRequest)
        let uploadingDownload = #expect(throws: TransferError.self) {
            try session.downloadTask(with: request, uploading: .file(URL(fileURLWithPath: "/etc/hostname")))
        }
        #expect(uploadingDownload?.code == .invalidRequest)
        let file = directory.url.appendingPathComponent("body.txt")
        try Data("body".utf8).write(to: file)
        let upload = try session.uploadTask(with: request, from: .file(file))
        #expect(upload.kind == .upload)
    }

    @Test("the delegate is never asked about caching in a background session; in a default one it is (CA-11, BG-22)")
    func neverAsksWillCache() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("body.txt")
        try Data("body".utf8).write(to: file)
        let proposed = CachedResponse(response: TransferResponse(url: Fixture.url(Self.url), statusCode: 200), data: Data())

        let delegate = BackgroundEventsDelegate()
        let background = try Session(configuration: Background.configuration(in: directory), delegate: delegate)
        defer { background.invalidateAndCancel() }
        let task = try background.uploadTask(with: Fixture.request(Self.url), from: .file(file))
        let backgroundAsks = background.askWillCache(task, proposed: proposed, reply: { _ in })
        #expect(!backgroundAsks)

        let foreground = try Fixture.session(delegate: delegate)
        defer { foreground.invalidateAndCancel() }
        let control = try foreground.uploadTask(with: Fixture.request(Self.url), from: .file(file))
        let foregroundAsks = foreground.askWillCache(control, proposed: proposed, reply: { _ in })
        #expect(foregroundAsks)
    }

    @Test("redirects are followed without asking the delegate's redirect method, which is told about each hop (RD-07, BG-04)")
    func redirectsAlwaysFollowed() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let delegate = BackgroundEventsDelegate()
            let session = try Session(configuration: Background.configuration(in: directory), delegate: delegate)
            defer { session.invalidateAndCancel() }
            let task = try session.downloadTask(with: Fixture.request(origin.url("/redirect/2")))
            task.resume()
            try await Fixture.eventually(timeout: .seconds(60), "the download completed") { !delegate.completions().isEmpty }
            #expect(delegate.completions() == ["complete \(task.taskIdentifier) ok"])
            // The delegate would have refused: it was never asked.
            #expect(delegate.redirectQuestions.withLock { $0 } == 0)
            #expect(delegate.entries.filter { $0.hasPrefix("redirected") } == [
                "redirected \(task.taskIdentifier) /redirect/1", "redirected \(task.taskIdentifier) /redirect/0",
            ])
            #expect(delegate.finishedDownloads.withLock { $0[task.taskIdentifier] } == Data("redirected".utf8))
            #expect(task.response?.statusCode == 200)
        }
    }

    @Test("a second live session with the same background identifier fails until the first is invalidated (BG-23, SES-13)")
    func oneLiveSessionPerIdentifier() async throws {
        let directory = try TemporaryDirectory()
        let other = try TemporaryDirectory()
        let identifier = "shared-\(UUID().uuidString)"
        let first = try Session(configuration: Background.configuration(identifier, in: directory))
        let error = #expect(throws: ConfigurationError.self) {
            _ = try Session(configuration: Background.configuration(identifier, in: directory))
        }
        #expect(error?.description.contains(identifier) == true)
        #expect(error?.description.contains("already live") == true)
        // Another store does not make it another session: the identifier is what names it (BG-15).
        #expect(throws: ConfigurationError.self) { _ = try Session(configuration: Background.configuration(identifier, in: other)) }
        // Configurations are still values: a default one is reused freely (SES-13).
        _ = try Fixture.session()
        _ = try Fixture.session()

        first.finishTasksAndInvalidate()
        await first.waitUntilInvalidated()
        let second = try Session(configuration: Background.configuration(identifier, in: directory))
        second.invalidateAndCancel()
        await second.waitUntilInvalidated()
    }

    @Test("an identifier that cannot name a directory is refused (BG-12, BG-15)", arguments: ["", "a/b", "..", "."])
    func unusableIdentifiers(_ identifier: String) throws {
        let directory = try TemporaryDirectory()
        #expect(throws: ConfigurationError.self) { _ = try Session(configuration: Background.configuration(identifier, in: directory)) }
    }

    @Test("the default store lives in the user's state directory, per identifier (BG-12)")
    func defaultStoreDirectory() {
        let configuration = SessionConfiguration.background(identifier: "nightly")
        #expect(configuration.identifier == "nightly")
        let store = configuration.background?.store as? BackgroundTaskDirectory
        #expect(store?.directory.path.hasSuffix("/ferry/background/nightly") == true)
        let state = ProcessInfo.processInfo.environment["XDG_STATE_HOME"] ?? (NSHomeDirectory() + "/.local/state")
        #expect(store?.directory.path.hasPrefix(URL(fileURLWithPath: state).standardizedFileURL.path) == true)
        #expect(SessionConfiguration.default.identifier == nil)
    }
}
