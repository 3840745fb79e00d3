import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A download asks for the server's own bytes: a decoded body's offsets are not the server's, so it
/// could never be continued with `Range`, and a checksum of what the server holds would not match
/// (DL-05, DL-07, DL-10). Data tasks keep asking for compression, as the session says.
@Suite("Download compression", .timeLimit(.minutes(2)))
struct DownloadCompressionTests {
    @Test("a download task sends no Accept-Encoding by default, while a data task of the same session asks for compression (DL-05)")
    func identityByDefault() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let download = try session.downloadTask(with: Fixture.request(origin.url("/echo")))
            download.temporaryDirectory = directory.url
            let outcome = await Resume.run(download)
            #expect(outcome.error == nil)
            let echoed = try Fixture.echo(try #require(outcome.contents))
            #expect(echoed.header("Accept-Encoding") == nil)

            let (data, _) = try await session.data(for: Fixture.request(origin.url("/echo")))
            #expect(try Fixture.echo(data).header("Accept-Encoding")?.contains("gzip") == true)
        }
    }

    @Test("a download that opts in to compression gets the decoded body, and pausing it makes no resume data: it is never continued by appending (DL-07, DL-10)")
    func optInIsNeverAppended() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let whole = try session.downloadTask(with: Fixture.request(origin.url("/resumable/100000?encoding=gzip")))
            whole.temporaryDirectory = directory.url
            whole.acceptsCompressedContent = true
            let outcome = await Resume.run(whole)
            #expect(outcome.error == nil)
            #expect(outcome.contents == Fixture.pattern(100_000))
            #expect(origin.requests.last?.header("Accept-Encoding")?.contains("gzip") == true)

            let stalled = try session.downloadTask(with: Fixture.request(origin.url("/resumable/100000?stall_at=40000&encoding=gzip")))
            stalled.temporaryDirectory = directory.url
            stalled.acceptsCompressedContent = true
            stalled.resume()
            try await Fixture.eventually("some bytes") { stalled.progress.bytesReceived > 0 }
            #expect(await stalled.cancelProducingResumeData() == nil)
            #expect(stalled.error?.resumeData == nil)
            try await Fixture.eventually("no partial file left") { (try? directory.contents().isEmpty) == true }
        }
    }
}
