import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A partial file still held by another writer (a process that was stopped, lost its job to
/// another, and may write again when it continues) is never shared: the task continues in a copy of
/// its verified prefix, and the held file is left as it is (DL-12). Nested in `ResumeDataTests`,
/// so serialized with it.
extension ResumeDataTests {
    @Suite("Resume data: a partial file another writer holds")
    struct HeldFile {
        @Test("continuing from a partial file another open file description holds locked writes a copy, never the held file (DL-12)")
        func heldFileIsCopied() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let url = origin.url("/resumable/\(ResumeDataTests.length)?stall_at=\(ResumeDataTests.pauseOffset)")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())

                // The stale writer: it holds the file, and has written past the resume data's offset.
                let held = open(resumeData.partialFile.path, O_WRONLY | O_APPEND)
                #expect(held >= 0)
                defer { close(held) }
                #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
                let staleTail = Data(repeating: 0xEE, count: 1000)
                _ = staleTail.withUnsafeBytes { write(held, $0.baseAddress, $0.count) }

                let second = try session.downloadTask(withResumeData: resumeData)
                second.temporaryFilePrefix = "second-"
                let outcome = await Resume.run(second)
                #expect(outcome.error == nil)
                #expect(outcome.resumptions == [.init(offset: Int64(ResumeDataTests.pauseOffset), expectedTotal: Int64(ResumeDataTests.length))])
                #expect(outcome.contents == ResumeDataTests.body)
                #expect(outcome.location != resumeData.partialFile)
                #expect(outcome.location?.lastPathComponent.hasPrefix("second-") == true)
                // The holder's file is as it left it: neither cut nor written by the new task.
                #expect(try Data(contentsOf: resumeData.partialFile) == Fixture.pattern(ResumeDataTests.pauseOffset) + staleTail)
            }
        }
    }
}
