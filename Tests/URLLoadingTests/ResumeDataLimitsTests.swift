import Crypto
import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Snapshots of running tasks, downloads that cannot be resumed, and the pure continuation decisions
/// (DL-09, DL-10, DL-12). Nested in `ResumeDataTests`, so serialized with it.
extension ResumeDataTests {
    @Suite("Resume data: snapshots and limits")
    struct Limits {
        // MARK: - Snapshots

        @Test("a snapshot taken while running, persisted as JSON, continues after the process wrote more: bytes past its offset are cut off (DL-12)")
        func snapshotOfARunningTask() async throws {
            try await Fixture.withOrigin { origin in
                let directory = try TemporaryDirectory()
                let firstStop = 80_000
                let secondStop = 240_000
                let url = origin.url("/resumable/\(ResumeDataTests.length)?stall_at=\(firstStop),\(secondStop)")
                let snapshotJSON: Data
                let partialLengthWhenKilled: Int
                do {
                    let session = try Fixture.session()
                    let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(firstStop))
                    // Taken while the task runs, and persisted, as the gateway does now and then.
                    let snapshot = try #require(await first.resumeDataSnapshot())
                    #expect(first.state == .running)
                    #expect(snapshot.offset == Int64(firstStop))
                    #expect(snapshot.sha256 == Resume.sha256(Fixture.pattern(firstStop)))
                    snapshotJSON = try snapshot.jsonData()

                    // The download goes on past the snapshot (here: paused and continued, request 1 of the
                    // URI stops at secondStop), writing more bytes into the same partial file.
                    let pause = try #require(await first.cancelProducingResumeData())
                    #expect(pause.partialFile == snapshot.partialFile)
                    let second = try session.downloadTask(withResumeData: pause)
                    #expect(await second.resumeDataSnapshot() == pause)  // not started: its source
                    second.resume()
                    try await Fixture.eventually("\(secondStop) bytes") { second.progress.bytesReceived == Int64(secondStop) }
                    let running = try #require(await second.resumeDataSnapshot())
                    #expect(running.offset == Int64(secondStop))
                    #expect(running.partialFile == snapshot.partialFile)
                    // The process "dies" here: the file stays as it is (cancelling with resume data keeps it).
                    _ = await second.cancelProducingResumeData()
                    #expect(await second.resumeDataSnapshot() == nil)  // completed
                    partialLengthWhenKilled = try Data(contentsOf: snapshot.partialFile).count
                    session.invalidateAndCancel()
                    await session.waitUntilInvalidated()
                }
                #expect(partialLengthWhenKilled == secondStop)

                // Only the old snapshot survived: continue from it in a new session.
                let session = try Fixture.session()
                let task = try session.downloadTask(withResumeData: try ResumeData(jsonData: snapshotJSON))
                task.computesSHA256 = true
                let outcome = await Resume.run(task)
                #expect(outcome.error == nil)
                #expect(outcome.resumptions == [.init(offset: Int64(firstStop), expectedTotal: Int64(ResumeDataTests.length))])
                #expect(outcome.contents == ResumeDataTests.body)
                #expect(task.sha256 == ResumeDataTests.bodySHA256)
                #expect(origin.requests.last?.header("Range") == "bytes=\(firstStop)-")
            }
        }

        // MARK: - Not resumable

        enum Unresumable: String, CaseIterable, Sendable {
            /// Not a GET: repeating the request is not the same as asking for the rest.
            case post
            /// No ETag, no Last-Modified: nothing to make If-Range safe.
            case noValidators
            /// Content-encoded (sent though not asked for): its offsets are not what a Range request counts.
            case contentEncoded
            /// Only a weak ETag: If-Range needs a strong validator.
            case weakTagOnly

            func request(_ origin: OriginServer) -> TransferRequest {
                switch self {
                case .post: Fixture.request(origin.url("/resumable/100000?stall_at=40000"), method: "POST")
                case .noValidators: Fixture.request(origin.url("/stall?bytes=40000"))
                case .contentEncoded: Fixture.request(origin.url("/resumable/100000?stall_at=40000&encoding=gzip"))
                case .weakTagOnly: Fixture.request(origin.url("/resumable/100000?stall_at=40000&etag=weak&last_modified=none"))
                }
            }
        }

        @Test("POST, no validators, a weak ETag alone or a content-encoded body: no resume data, and the partial file is removed (DL-10)",
              arguments: Unresumable.allCases)
        func unresumable(_ kind: Unresumable) async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let task = try session.downloadTask(with: kind.request(origin))
                task.temporaryDirectory = directory.url
                task.resume()
                try await Fixture.eventually("some bytes") { task.progress.bytesReceived > 0 }
                #expect(try directory.contents().count == 1)
                if kind == .contentEncoded { #expect(task.response?.headers["Content-Encoding"] == "gzip") }
                #expect(await task.resumeDataSnapshot() == nil)
                #expect(await task.cancelProducingResumeData() == nil)
                #expect(task.error?.code == .cancelled)
                #expect(task.error?.resumeData == nil)
                #expect(try directory.contents().isEmpty)
            }
        }

        @Test("a mid-body failure of a POST download carries no resume data and leaves no file (DL-08, DL-10)")
        func unresumableFailure() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let request = Fixture.request(origin.url("/resumable/100000?drop_at=40000"), method: "POST")
                let error = await #expect(throws: TransferError.self) {
                    _ = try await session.download(for: request, to: directory.url.appendingPathComponent("file.bin"))
                }
                #expect(error?.code == .networkConnectionLost)
                #expect(error?.resumeData == nil)
                #expect(try directory.contents().isEmpty)
            }
        }

        @Test("cancel() without resume data removes the partial file, also for a task continuing from resume data (DL-07)")
        func plainCancelRemovesThePartialFile() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let url = origin.url("/resumable/\(ResumeDataTests.length)?stall_at=\(ResumeDataTests.pauseOffset),\(ResumeDataTests.pauseOffset * 2)")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())

                // Cancelled before it started, producing resume data: the same resume data comes back.
                let unstarted = try session.downloadTask(withResumeData: resumeData)
                #expect(await unstarted.cancelProducingResumeData() == resumeData)
                #expect(FileManager.default.fileExists(atPath: resumeData.partialFile.path))

                let second = try session.downloadTask(withResumeData: resumeData)
                second.resume()
                try await Fixture.eventually("more bytes") { second.progress.bytesReceived == Int64(ResumeDataTests.pauseOffset * 2) }
                second.cancel()
                #expect(await second.waitUntilCompleted()?.code == .cancelled)
                #expect(second.error?.resumeData == nil)
                #expect(try directory.contents().isEmpty)
            }
        }

        // MARK: - Pure decisions

        @Test("classifying the continuation's response: 206 at the offset appends, 200 replaces, 416 or a misplaced 206 restarts (DL-09, DL-10)")
        func classification() {
            func headers(_ fields: [String: String]) -> HTTPHeaders {
                var headers = HTTPHeaders()
                for (name, value) in fields { headers[name] = value }
                return headers
            }
            #expect(ResumeResponse.classify(
                statusCode: 206, headers: headers(["Content-Range": "bytes 100-199/200", "Content-Length": "100"]), requestedOffset: 100)
                == .append(expectedTotal: 200))
            #expect(ResumeResponse.classify(
                statusCode: 206, headers: headers(["Content-Range": "bytes 100-199/*", "Content-Length": "100"]), requestedOffset: 100)
                == .append(expectedTotal: 200))
            #expect(ResumeResponse.classify(statusCode: 200, headers: headers(["Content-Length": "200"]), requestedOffset: 100)
                == .replace(expectedTotal: 200))
            func restarts(_ response: ResumeResponse) -> Bool {
                if case .restartWithoutRange = response { return true }
                return false
            }
            #expect(restarts(ResumeResponse.classify(
                statusCode: 206, headers: headers(["Content-Range": "bytes 0-199/200"]), requestedOffset: 100)))
            #expect(restarts(ResumeResponse.classify(statusCode: 416, headers: headers([:]), requestedOffset: 100)))
            #expect(restarts(ResumeResponse.classify(
                statusCode: 206, headers: headers(["Content-Range": "bytes 100-199/200", "Content-Encoding": "gzip"]), requestedOffset: 100)))
            #expect(ResumeResponse.classify(statusCode: 404, headers: headers([:]), requestedOffset: 100) == .unrelated)
        }
    }
}
