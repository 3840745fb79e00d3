import Crypto
import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Continuations the server cannot serve as asked, partial files that changed on disk, and failures
/// that carry resume data (DL-08, DL-10, DL-12). Nested in `ResumeDataTests`, so serialized with it.
extension ResumeDataTests {
    @Suite("Resume data: recovery")
    struct Recovery {
        // MARK: - The server cannot continue

        @Test("the entity changed (If-Range fails, 200): the download starts over from byte 0 with the new entity only (DL-10, DL-09)")
        func entityChanged() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let url = origin.url("/resumable/\(ResumeDataTests.length)?stall_at=\(ResumeDataTests.pauseOffset)&changes=1")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())
                #expect(resumeData.entityTag == "\"resumable-\(ResumeDataTests.length)-v0\"")

                let second = try session.downloadTask(withResumeData: resumeData)
                second.computesSHA256 = true
                let outcome = await Resume.run(second)
                #expect(outcome.error == nil)
                #expect(outcome.response?.statusCode == 200)
                #expect(outcome.response?.headers["ETag"] == "\"resumable-\(ResumeDataTests.length)-v1\"")
                #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(ResumeDataTests.length))])
                #expect(second.resumeOffset == 0)
                // Version 1's bytes, all of them: none of version 0's prefix survived.
                let expected = Fixture.pattern(ResumeDataTests.length, from: 1)
                #expect(outcome.contents == expected)
                #expect(second.sha256 == Resume.sha256(expected))
                #expect(second.progress.bytesReceived == Int64(ResumeDataTests.length))
                #expect(origin.requests.last?.header("If-Range") == "\"resumable-\(ResumeDataTests.length)-v0\"")
            }
        }

        @Test("a server without range support answers 200: the download starts over and the file is right (DL-10)")
        func serverIgnoresRanges() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let url = origin.url("/resumable/\(ResumeDataTests.length)?stall_at=\(ResumeDataTests.pauseOffset)&ranges=ignore")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())

                let second = try session.downloadTask(withResumeData: resumeData)
                second.computesSHA256 = true
                let outcome = await Resume.run(second)
                #expect(outcome.error == nil)
                #expect(outcome.response?.statusCode == 200)
                #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(ResumeDataTests.length))])
                #expect(outcome.contents == ResumeDataTests.body)
                #expect(second.sha256 == ResumeDataTests.bodySHA256)
                #expect(origin.requests.last?.header("Range") == "bytes=\(ResumeDataTests.pauseOffset)-")
                #expect(origin.requests.count == 2)
            }
        }

        @Test("416 to the continuation: the request is sent again without Range and the file is right (DL-10)")
        func rangeNotSatisfiable() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let length = 50_000
                let request = Fixture.request(origin.url("/bytes/\(length)"))
                let (_, head) = try await session.data(for: request)
                // Every byte had arrived when the process died: continuing at the end is unsatisfiable.
                let partialFile = directory.url.appendingPathComponent("partial.bin")
                try Fixture.pattern(length).write(to: partialFile)
                let resumeData = ResumeData(
                    url: request.url, originalRequest: request, entityTag: head.headers["ETag"],
                    lastModified: head.headers["Last-Modified"], offset: Int64(length), partialFile: partialFile,
                    sha256: Resume.sha256(Fixture.pattern(length)), expectedTotal: Int64(length))
                origin.resetStatistics()

                let task = try session.downloadTask(withResumeData: resumeData)
                task.computesSHA256 = true
                let outcome = await Resume.run(task)
                #expect(outcome.error == nil)
                #expect(outcome.response?.statusCode == 200)
                #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(length))])
                #expect(outcome.contents == Fixture.pattern(length))
                #expect(task.sha256 == Resume.sha256(Fixture.pattern(length)))
                let requests = origin.requests
                #expect(requests.count == 2)
                #expect(requests.first?.header("Range") == "bytes=\(length)-")
                #expect(requests.last?.header("Range") == nil)
                #expect(requests.last?.header("If-Range") == nil)
            }
        }

        // MARK: - The partial file is not what was recorded

        enum PartialFileDamage: String, CaseIterable, Sendable {
            case changed, truncated, missing
        }

        @Test("a partial file changed, truncated or removed on disk: no Range is sent, the download starts over, never a mix (DL-10, DL-12)",
              arguments: PartialFileDamage.allCases)
        func damagedPartialFile(_ damage: PartialFileDamage) async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let url = origin.url("/resumable/\(ResumeDataTests.length)?stall_at=\(ResumeDataTests.pauseOffset)")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())

                let path = resumeData.partialFile.path
                switch damage {
                case .changed:
                    // Same length, one byte different in the middle.
                    let handle = try FileHandle(forUpdating: resumeData.partialFile)
                    try handle.seek(toOffset: UInt64(ResumeDataTests.pauseOffset / 2))
                    try handle.write(contentsOf: Data([0xff]))
                    try handle.close()
                case .truncated:
                    #expect(truncate(path, off_t(ResumeDataTests.pauseOffset / 2)) == 0)
                case .missing:
                    try FileManager.default.removeItem(at: resumeData.partialFile)
                }

                let second = try session.downloadTask(withResumeData: resumeData)
                second.computesSHA256 = true
                let outcome = await Resume.run(second)
                #expect(outcome.error == nil)
                #expect(outcome.response?.statusCode == 200)
                #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(ResumeDataTests.length))])
                #expect(second.resumeOffset == 0)
                #expect(outcome.contents == ResumeDataTests.body)
                #expect(second.sha256 == ResumeDataTests.bodySHA256)
                // Nothing on disk was trusted: the whole body was asked for.
                #expect(origin.requests.count == 2)
                #expect(origin.requests.last?.header("Range") == nil)
                #expect(origin.requests.last?.header("If-Range") == nil)
            }
        }

        // MARK: - Failures

        @Test("a connection lost mid-body fails with resume data in the error; continuing from it completes the file (DL-08, DL-12, ER-01)")
        func failureCarriesResumeData() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let destination = directory.url.appendingPathComponent("file.bin")
                let request = Fixture.request(origin.url("/resumable/\(ResumeDataTests.length)?drop_at=\(ResumeDataTests.pauseOffset)"))

                let error = await #expect(throws: TransferError.self) {
                    _ = try await session.download(for: request, to: destination)
                }
                #expect(error?.code == .networkConnectionLost)
                let resumeData = try #require(error?.resumeData)
                #expect(resumeData.offset > 0 && resumeData.offset <= Int64(ResumeDataTests.pauseOffset))
                #expect(!FileManager.default.fileExists(atPath: destination.path))
                // The partial file waits next to the destination, holding exactly what the hash covers.
                #expect(resumeData.partialFile.deletingLastPathComponent().standardizedFileURL.path
                        == directory.url.standardizedFileURL.path)
                let partial = try Data(contentsOf: resumeData.partialFile)
                #expect(partial == Fixture.pattern(Int(resumeData.offset)))
                #expect(resumeData.sha256 == Resume.sha256(partial))

                let response = try await session.download(resumeFrom: resumeData, to: destination)
                #expect(response.statusCode == 206)
                #expect(try Data(contentsOf: destination) == ResumeDataTests.body)
                #expect(try directory.contents() == ["file.bin"])
                #expect(origin.requests.last?.header("Range") == "bytes=\(resumeData.offset)-")
                #expect(origin.requests.last?.header("If-Range") == resumeData.entityTag)
            }
        }

        @Test("a continuation that fails mid-body again carries resume data for everything so far; the third try completes (DL-08, DL-12)")
        func repeatedFailures() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let request = Fixture.request(origin.url("/resumable/\(ResumeDataTests.length)?drop_at=80000,240000"))
                let first = try session.downloadTask(with: request)
                first.temporaryDirectory = directory.url
                let firstOutcome = await Resume.run(first)
                #expect(firstOutcome.error?.code == .networkConnectionLost)
                let afterFirst = try #require(firstOutcome.error?.resumeData)

                let second = try session.downloadTask(withResumeData: afterFirst)
                let secondOutcome = await Resume.run(second)
                #expect(secondOutcome.resumptions == [.init(offset: afterFirst.offset, expectedTotal: Int64(ResumeDataTests.length))])
                #expect(secondOutcome.error?.code == .networkConnectionLost)
                let afterSecond = try #require(secondOutcome.error?.resumeData)
                #expect(afterSecond.partialFile == afterFirst.partialFile)
                #expect(afterSecond.offset > afterFirst.offset && afterSecond.offset <= 240_000)
                let partial = try Data(contentsOf: afterSecond.partialFile)
                #expect(partial == Fixture.pattern(Int(afterSecond.offset)))
                #expect(afterSecond.sha256 == Resume.sha256(partial))

                let third = try session.downloadTask(withResumeData: afterSecond)
                third.computesSHA256 = true
                let outcome = await Resume.run(third)
                #expect(outcome.error == nil)
                #expect(outcome.resumptions == [.init(offset: afterSecond.offset, expectedTotal: Int64(ResumeDataTests.length))])
                #expect(outcome.contents == ResumeDataTests.body)
                #expect(third.sha256 == ResumeDataTests.bodySHA256)
            }
        }

        @Test("an unrelated answer to the continuation (503) is the task's response in a file of its own; the partial file waits for the same resume data (DL-03, DL-10, DL-12)")
        func unrelatedResponseKeepsThePartialFile() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let url = origin.url("/resumable/\(ResumeDataTests.length)?stall_at=\(ResumeDataTests.pauseOffset)&statuses=200,503")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())

                let unavailable = try session.downloadTask(withResumeData: resumeData)
                unavailable.temporaryDirectory = directory.url
                let outcome = await Resume.run(unavailable)
                #expect(outcome.error == nil)
                #expect(outcome.response?.statusCode == 503)
                #expect(outcome.resumptions.isEmpty)
                #expect(unavailable.resumeOffset == nil)
                #expect(outcome.location != resumeData.partialFile)
                #expect(outcome.contents == Data("status 503\n".utf8))
                // Untouched, and still what the resume data describes.
                #expect(try Data(contentsOf: resumeData.partialFile) == Fixture.pattern(ResumeDataTests.pauseOffset))
                try await Fixture.eventually("only the partial file left") {
                    (try? directory.contents()) == [resumeData.partialFile.lastPathComponent]
                }

                let retry = try session.downloadTask(withResumeData: resumeData)
                let retried = await Resume.run(retry)
                #expect(retried.error == nil)
                #expect(retried.response?.statusCode == 206)
                #expect(retried.resumptions == [.init(offset: Int64(ResumeDataTests.pauseOffset), expectedTotal: Int64(ResumeDataTests.length))])
                #expect(retried.contents == ResumeDataTests.body)
            }
        }

        @Test("a download reached through a redirect continues through it: the redirected request carries Range and If-Range (DL-07, DL-09, RD-04)")
        func continuesThroughARedirect() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let target = "/resumable/\(ResumeDataTests.length)?stall_at=\(ResumeDataTests.pauseOffset)"
                let encodedTarget = try #require(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                let url = origin.url("/redirect-to?url=\(encodedTarget)&status=302")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())
                #expect(resumeData.originalRequest.url.absoluteString == url)
                #expect(resumeData.url.absoluteString == origin.url(target))

                let second = try session.downloadTask(withResumeData: resumeData)
                let outcome = await Resume.run(second)
                #expect(outcome.error == nil)
                #expect(outcome.response?.statusCode == 206)
                #expect(outcome.resumptions == [.init(offset: Int64(ResumeDataTests.pauseOffset), expectedTotal: Int64(ResumeDataTests.length))])
                #expect(outcome.contents == ResumeDataTests.body)
                let last = try #require(origin.requests.last)
                #expect(last.path == "/resumable/\(ResumeDataTests.length)")
                #expect(last.header("Range") == "bytes=\(ResumeDataTests.pauseOffset)-")
                #expect(last.header("If-Range") == resumeData.entityTag)
            }
        }
    }
}
