import Crypto
import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Pausing, failing and continuing downloads (DL-07..DL-12), against `/resumable/{n}`, which stops a
/// download's first request at a known offset and can change its entity, ignore ranges or encode
/// its body (see `ResumableRoute`).
///
/// Serialized: two dozen downloads of a few hundred kB at once, hashed on the engine's loop threads,
/// weigh on the timing-sensitive tests of other suites running alongside on a small machine.
@Suite("Resume data", .serialized, .timeLimit(.minutes(3)))
struct ResumeDataTests {
    // Small enough that a dozen tests running at once in a debug build (where the engine's SHA-256
    // is slow) do not starve each other's transfer loops.
    static let length = 400_000
    static let pauseOffset = 120_000
    /// The whole body, made once: every test compares against it.
    static let body = Fixture.pattern(length)
    static let bodySHA256 = Resume.sha256(body)

    // MARK: - Pause and continue

    @Test("cancelProducingResumeData keeps the partial file; a task from the resume data appends the rest with Range and If-Range (DL-07, DL-09, DL-05)")
    func pauseAndContinue() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))

            let resumeData = try #require(await first.cancelProducingResumeData())
            #expect(first.error?.code == .cancelled)
            #expect(first.error?.resumeData == resumeData)
            #expect(resumeData.version == ResumeData.currentVersion)
            #expect(resumeData.offset == Int64(Self.pauseOffset))
            #expect(resumeData.expectedTotal == Int64(Self.length))
            #expect(resumeData.entityTag == "\"resumable-\(Self.length)\"")
            #expect(resumeData.lastModified != nil)
            #expect(resumeData.originalRequest == first.originalRequest)
            // The partial file holds exactly `offset` bytes, and the recorded hash is theirs.
            #expect(try directory.contents() == [resumeData.partialFile.lastPathComponent])
            let partial = try Data(contentsOf: resumeData.partialFile)
            #expect(partial == Fixture.pattern(Self.pauseOffset))
            #expect(resumeData.sha256 == Resume.sha256(partial))

            let second = try session.downloadTask(withResumeData: resumeData)
            #expect(second.resumeSource == resumeData)
            let outcome = await Resume.run(second)
            #expect(outcome.error == nil)
            #expect(outcome.response?.statusCode == 206)
            #expect(outcome.resumptions == [.init(offset: Int64(Self.pauseOffset), expectedTotal: Int64(Self.length))])
            #expect(outcome.contents == Self.body)
            #expect(outcome.location == resumeData.partialFile)
            #expect(second.resumeOffset == Int64(Self.pauseOffset))
            #expect(second.sha256 == Self.bodySHA256)
            #expect(second.fileLength == Int64(Self.length))
            #expect(second.progress.bytesReceived == Int64(Self.length))
            #expect(second.progress.totalBytesExpectedToReceive == Int64(Self.length))

            let requests = origin.requests
            #expect(requests.count == 2)
            #expect(requests.first?.header("Range") == nil)
            #expect(requests.last?.header("Range") == "bytes=\(Self.pauseOffset)-")
            #expect(requests.last?.header("If-Range") == resumeData.entityTag)
            // The finished file was handed over, then deleted (DL-02).
            try await Fixture.eventually("the finished file to be deleted") { (try? directory.contents())?.isEmpty == true }
        }
    }

    @Test("the completion-handler forms: cancel(producingResumeData:) and downloadTask(withResumeData:completionHandler:) (DL-07, TT-08)")
    func completionHandlerForms() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
            let produced: ResumeData? = await withCheckedContinuation { continuation in
                first.cancel(producingResumeData: { continuation.resume(returning: $0) })
            }
            let resumeData = try #require(produced)
            #expect(resumeData.offset == Int64(Self.pauseOffset))

            let (contents, status): (Data?, Int?) = await withCheckedContinuation { continuation in
                do {
                    let task = try session.downloadTask(withResumeData: resumeData) { location, response, _ in
                        continuation.resume(returning: (location.flatMap { try? Data(contentsOf: $0) }, response?.statusCode))
                    }
                    task.resume()
                } catch {
                    continuation.resume(returning: (nil, nil))
                }
            }
            #expect(status == 206)
            #expect(contents == Self.body)
        }
    }

    // MARK: - Persisted resume data

    @Test("resume data survives a JSON round trip and continues in a new session, whose delegate hears didResumeAtOffset (DL-12, DL-09, DL-01)")
    func jsonRoundTripInANewSession() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)")
            let json: Data
            do {
                let session = try Fixture.session()
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())
                json = try resumeData.jsonData()
                #expect(try ResumeData(jsonData: json) == resumeData)
                #expect(try ResumeData(jsonData: json).jsonData() == json)
                session.invalidateAndCancel()
                await session.waitUntilInvalidated()
            }

            // The documented keys, and nothing else.
            let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            #expect(Set(object.keys) == [
                "version", "url", "request", "entity_tag", "last_modified", "offset", "partial_file", "sha256", "expected_total",
            ])
            #expect(object["version"] as? Int == 1)
            #expect(object["offset"] as? Int == Self.pauseOffset)

            // A newer format is refused, not misread.
            var newer = object
            newer["version"] = 2
            let newerJSON = try JSONSerialization.data(withJSONObject: newer)
            let refusal = #expect(throws: TransferError.self) { _ = try ResumeData(jsonData: newerJSON) }
            #expect(refusal?.code == .invalidRequest)

            // As the gateway does: a new session (in a new process, as far as it knows) from the stored JSON.
            let delegate = RecordingDelegate()
            let session = try Fixture.session(delegate: delegate)
            let task = try session.downloadTask(withResumeData: try ResumeData(jsonData: json))
            task.resume()
            #expect(await task.waitUntilCompleted() == nil)
            try await Fixture.eventually("completion delivered") { delegate.entries.contains { $0.hasPrefix("complete") } }
            #expect(delegate.entries.contains("resumed \(Self.pauseOffset) of \(Self.length)"))
            #expect(delegate.entries.suffix(2) == ["finishedDownloading", "complete \(task.taskIdentifier) ok"])
            #expect(delegate.finishedDownloads.withLock { $0 } == [Self.body])
            // Progress counts from the offset: what was on disk is not reported as written again.
            let written = delegate.writtenTotals.withLock { $0 }
            #expect(written.allSatisfy { $0 > Int64(Self.pauseOffset) })
            #expect(written.last == Int64(Self.length))
            #expect(task.sha256 == Self.bodySHA256)
            #expect(origin.requests.last?.header("Range") == "bytes=\(Self.pauseOffset)-")
        }
    }

    enum Validators: String, CaseIterable, Sendable {
        /// Last-Modified alone: If-Range carries the date.
        case lastModifiedOnly = "etag=none"
        /// A weak ETag cannot go in If-Range (RFC 9110): the date goes instead.
        case weakTagAndLastModified = "etag=weak"
        /// A strong ETag alone.
        case strongTagOnly = "last_modified=none"
    }

    @Test("If-Range carries the strong ETag, else the Last-Modified date; a weak ETag is never sent (DL-07, DL-09)",
          arguments: Validators.allCases)
    func ifRangeValidator(_ validators: Validators) async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)&\(validators.rawValue)")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
            let resumeData = try #require(await first.cancelProducingResumeData())
            let lastModified = first.response?.headers["Last-Modified"]
            switch validators {
            case .lastModifiedOnly, .weakTagAndLastModified:
                #expect(resumeData.entityTag == nil)
                #expect(resumeData.lastModified != nil)
                #expect(resumeData.lastModified == lastModified)
            case .strongTagOnly:
                #expect(resumeData.entityTag == "\"resumable-\(Self.length)\"")
                #expect(resumeData.lastModified == nil)
            }

            let second = try session.downloadTask(withResumeData: resumeData)
            let outcome = await Resume.run(second)
            #expect(outcome.error == nil)
            #expect(outcome.response?.statusCode == 206)
            #expect(outcome.contents == Self.body)
            let ifRange = origin.requests.last?.header("If-Range")
            #expect(ifRange == (resumeData.entityTag ?? lastModified))
            #expect(ifRange?.hasPrefix("W/") == false)
        }
    }

    @Test("an idle timeout mid-body carries resume data too; continuing in another session completes the file (DL-08, DL-12, LC-22)")
    func timeoutCarriesResumeData() async throws {
        try await Fixture.withOrigin { origin in
            // The session's timeout, not the request's: resume data carries the request, and the
            // continuation should not inherit a timeout this short. Still long enough for a slow first
            // byte on a loaded machine.
            let impatient = try Fixture.session { $0.requestTimeout = 3 }
            let directory = try TemporaryDirectory()
            let task = try impatient.downloadTask(with: Fixture.request(origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)")))
            task.temporaryDirectory = directory.url
            let failed = await Resume.run(task)
            #expect(failed.error?.code == .timedOut)
            let resumeData = try #require(failed.error?.resumeData)
            #expect(resumeData.offset == Int64(Self.pauseOffset))
            #expect(resumeData.originalRequest.timeoutInterval == nil)

            let outcome = await Resume.run(try Fixture.session().downloadTask(withResumeData: resumeData))
            #expect(outcome.error == nil)
            #expect(outcome.resumptions == [.init(offset: Int64(Self.pauseOffset), expectedTotal: Int64(Self.length))])
            #expect(outcome.contents == Self.body)
        }
    }

    @Test("pause and continue over https with HTTP/2 (DL-07, DL-09)")
    func overHTTP2() async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        let options = OriginServer.TLSOptions(certificates: certificates, http2: true)
        try await Fixture.withOrigin(tls: options) { origin in
            let session = try Fixture.session { $0.additionalTrustedCAsPEM = certificates.caCertificatePEM }
            let directory = try TemporaryDirectory()
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
            let resumeData = try #require(await first.cancelProducingResumeData())

            let second = try session.downloadTask(withResumeData: resumeData)
            let outcome = await Resume.run(second)
            #expect(outcome.error == nil)
            #expect(outcome.response?.httpVersion == "HTTP/2")
            #expect(outcome.response?.statusCode == 206)
            #expect(outcome.contents == Self.body)
            #expect(second.sha256 == Self.bodySHA256)
            #expect(origin.requests.last?.header("Range") == "bytes=\(Self.pauseOffset)-")
        }
    }

    // MARK: - The server cannot continue

    @Test("the entity changed (If-Range fails, 200): the download starts over from byte 0 with the new entity only (DL-10, DL-09)")
    func entityChanged() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)&changes=1")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
            let resumeData = try #require(await first.cancelProducingResumeData())
            #expect(resumeData.entityTag == "\"resumable-\(Self.length)-v0\"")

            let second = try session.downloadTask(withResumeData: resumeData)
            let outcome = await Resume.run(second)
            #expect(outcome.error == nil)
            #expect(outcome.response?.statusCode == 200)
            #expect(outcome.response?.headers["ETag"] == "\"resumable-\(Self.length)-v1\"")
            #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(Self.length))])
            #expect(second.resumeOffset == 0)
            // Version 1's bytes, all of them: none of version 0's prefix survived.
            let expected = Fixture.pattern(Self.length, from: 1)
            #expect(outcome.contents == expected)
            #expect(second.sha256 == Resume.sha256(expected))
            #expect(second.progress.bytesReceived == Int64(Self.length))
            #expect(origin.requests.last?.header("If-Range") == "\"resumable-\(Self.length)-v0\"")
        }
    }

    @Test("a server without range support answers 200: the download starts over and the file is right (DL-10)")
    func serverIgnoresRanges() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)&ranges=ignore")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
            let resumeData = try #require(await first.cancelProducingResumeData())

            let second = try session.downloadTask(withResumeData: resumeData)
            let outcome = await Resume.run(second)
            #expect(outcome.error == nil)
            #expect(outcome.response?.statusCode == 200)
            #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(Self.length))])
            #expect(outcome.contents == Self.body)
            #expect(second.sha256 == Self.bodySHA256)
            #expect(origin.requests.last?.header("Range") == "bytes=\(Self.pauseOffset)-")
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
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
            let resumeData = try #require(await first.cancelProducingResumeData())

            let path = resumeData.partialFile.path
            switch damage {
            case .changed:
                // Same length, one byte different in the middle.
                let handle = try FileHandle(forUpdating: resumeData.partialFile)
                try handle.seek(toOffset: UInt64(Self.pauseOffset / 2))
                try handle.write(contentsOf: Data([0xff]))
                try handle.close()
            case .truncated:
                #expect(truncate(path, off_t(Self.pauseOffset / 2)) == 0)
            case .missing:
                try FileManager.default.removeItem(at: resumeData.partialFile)
            }

            let second = try session.downloadTask(withResumeData: resumeData)
            let outcome = await Resume.run(second)
            #expect(outcome.error == nil)
            #expect(outcome.response?.statusCode == 200)
            #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(Self.length))])
            #expect(second.resumeOffset == 0)
            #expect(outcome.contents == Self.body)
            #expect(second.sha256 == Self.bodySHA256)
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
            let request = Fixture.request(origin.url("/resumable/\(Self.length)?drop_at=\(Self.pauseOffset)"))

            let error = await #expect(throws: TransferError.self) {
                _ = try await session.download(for: request, to: destination)
            }
            #expect(error?.code == .networkConnectionLost)
            let resumeData = try #require(error?.resumeData)
            #expect(resumeData.offset > 0 && resumeData.offset <= Int64(Self.pauseOffset))
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            // The partial file waits next to the destination, holding exactly what the hash covers.
            #expect(resumeData.partialFile.deletingLastPathComponent().standardizedFileURL.path
                    == directory.url.standardizedFileURL.path)
            let partial = try Data(contentsOf: resumeData.partialFile)
            #expect(partial == Fixture.pattern(Int(resumeData.offset)))
            #expect(resumeData.sha256 == Resume.sha256(partial))

            let response = try await session.download(resumeFrom: resumeData, to: destination)
            #expect(response.statusCode == 206)
            #expect(try Data(contentsOf: destination) == Self.body)
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
            let request = Fixture.request(origin.url("/resumable/\(Self.length)?drop_at=80000,240000"))
            let first = try session.downloadTask(with: request)
            first.temporaryDirectory = directory.url
            let firstOutcome = await Resume.run(first)
            #expect(firstOutcome.error?.code == .networkConnectionLost)
            let afterFirst = try #require(firstOutcome.error?.resumeData)

            let second = try session.downloadTask(withResumeData: afterFirst)
            let secondOutcome = await Resume.run(second)
            #expect(secondOutcome.resumptions == [.init(offset: afterFirst.offset, expectedTotal: Int64(Self.length))])
            #expect(secondOutcome.error?.code == .networkConnectionLost)
            let afterSecond = try #require(secondOutcome.error?.resumeData)
            #expect(afterSecond.partialFile == afterFirst.partialFile)
            #expect(afterSecond.offset > afterFirst.offset && afterSecond.offset <= 240_000)
            let partial = try Data(contentsOf: afterSecond.partialFile)
            #expect(partial == Fixture.pattern(Int(afterSecond.offset)))
            #expect(afterSecond.sha256 == Resume.sha256(partial))

            let third = try session.downloadTask(withResumeData: afterSecond)
            let outcome = await Resume.run(third)
            #expect(outcome.error == nil)
            #expect(outcome.resumptions == [.init(offset: afterSecond.offset, expectedTotal: Int64(Self.length))])
            #expect(outcome.contents == Self.body)
            #expect(third.sha256 == Self.bodySHA256)
        }
    }

    @Test("an unrelated answer to the continuation (503) is the task's response in a file of its own; the partial file waits for the same resume data (DL-03, DL-10, DL-12)")
    func unrelatedResponseKeepsThePartialFile() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)&statuses=200,503")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
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
            #expect(try Data(contentsOf: resumeData.partialFile) == Fixture.pattern(Self.pauseOffset))
            try await Fixture.eventually("only the partial file left") {
                (try? directory.contents()) == [resumeData.partialFile.lastPathComponent]
            }

            let retry = try session.downloadTask(withResumeData: resumeData)
            let retried = await Resume.run(retry)
            #expect(retried.error == nil)
            #expect(retried.response?.statusCode == 206)
            #expect(retried.resumptions == [.init(offset: Int64(Self.pauseOffset), expectedTotal: Int64(Self.length))])
            #expect(retried.contents == Self.body)
        }
    }

    @Test("a download reached through a redirect continues through it: the redirected request carries Range and If-Range (DL-07, DL-09, RD-04)")
    func continuesThroughARedirect() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let target = "/resumable/\(Self.length)?stall_at=\(Self.pauseOffset)"
            let encodedTarget = try #require(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let url = origin.url("/redirect-to?url=\(encodedTarget)&status=302")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
            let resumeData = try #require(await first.cancelProducingResumeData())
            #expect(resumeData.originalRequest.url.absoluteString == url)
            #expect(resumeData.url.absoluteString == origin.url(target))

            let second = try session.downloadTask(withResumeData: resumeData)
            let outcome = await Resume.run(second)
            #expect(outcome.error == nil)
            #expect(outcome.response?.statusCode == 206)
            #expect(outcome.resumptions == [.init(offset: Int64(Self.pauseOffset), expectedTotal: Int64(Self.length))])
            #expect(outcome.contents == Self.body)
            let last = try #require(origin.requests.last)
            #expect(last.path == "/resumable/\(Self.length)")
            #expect(last.header("Range") == "bytes=\(Self.pauseOffset)-")
            #expect(last.header("If-Range") == resumeData.entityTag)
        }
    }

    // MARK: - Snapshots

    @Test("a snapshot taken while running, persisted as JSON, continues after the process wrote more: bytes past its offset are cut off (DL-12)")
    func snapshotOfARunningTask() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let firstStop = 80_000
            let secondStop = 240_000
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(firstStop),\(secondStop)")
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
            let outcome = await Resume.run(task)
            #expect(outcome.error == nil)
            #expect(outcome.resumptions == [.init(offset: Int64(firstStop), expectedTotal: Int64(Self.length))])
            #expect(outcome.contents == Self.body)
            #expect(task.sha256 == Self.bodySHA256)
            #expect(origin.requests.last?.header("Range") == "bytes=\(firstStop)-")
        }
    }

    // MARK: - Not resumable

    enum Unresumable: String, CaseIterable, Sendable {
        /// Not a GET: repeating the request is not the same as asking for the rest.
        case post
        /// No ETag, no Last-Modified: nothing to make If-Range safe.
        case noValidators
        /// Content-encoded: curl decodes it, so file offsets are not the server's.
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
            let url = origin.url("/resumable/\(Self.length)?stall_at=\(Self.pauseOffset),\(Self.pauseOffset * 2)")
            let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(Self.pauseOffset))
            let resumeData = try #require(await first.cancelProducingResumeData())

            // Cancelled before it started, producing resume data: the same resume data comes back.
            let unstarted = try session.downloadTask(withResumeData: resumeData)
            #expect(await unstarted.cancelProducingResumeData() == resumeData)
            #expect(FileManager.default.fileExists(atPath: resumeData.partialFile.path))

            let second = try session.downloadTask(withResumeData: resumeData)
            second.resume()
            try await Fixture.eventually("more bytes") { second.progress.bytesReceived == Int64(Self.pauseOffset * 2) }
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

/// Helpers for the resume tests.
enum Resume {
    struct Resumption: Equatable, CustomStringConvertible {
        var offset: Int64
        var expectedTotal: Int64?
        var description: String { "resumed(\(offset), \(expectedTotal.map(String.init) ?? "nil"))" }
    }

    /// What a download task's events showed.
    struct Outcome {
        var resumptions: [Resumption] = []
        var response: TransferResponse?
        /// The handed-over file and its bytes, read while it was valid (DL-02).
        var location: URL?
        var contents: Data?
        var error: TransferError?
    }

    /// Runs `task` to completion through its events.
    static func run(_ task: DownloadTask) async -> Outcome {
        var outcome = Outcome()
        let events = task.events
        task.resume()
        for await event in events {
            switch event {
            case .response(let response): outcome.response = response
            case .resumed(let offset, let total): outcome.resumptions.append(Resumption(offset: offset, expectedTotal: total))
            case .downloadFinished(let location):
                outcome.location = location
                outcome.contents = try? Data(contentsOf: location)
            case .completed(let error): outcome.error = error
            default: break
            }
        }
        return outcome
    }

    /// A download of `url` writing into `directory`, once it received exactly `offset` bytes (where
    /// `/resumable`'s `stall_at` holds it).
    static func stalledDownload(
        _ session: Session, _ url: String, in directory: TemporaryDirectory, at offset: Int64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> DownloadTask {
        let task = try session.downloadTask(with: Fixture.request(url))
        task.temporaryDirectory = directory.url
        task.resume()
        // Generous: with the whole suite running in parallel on two cores, the first bytes can take long.
        try await Fixture.eventually(timeout: .seconds(90), "\(offset) bytes received", sourceLocation: sourceLocation) {
            task.progress.bytesReceived == offset
        }
        return task
    }

    /// SHA-256 as lower-case hex, by swift-crypto: not the engine's own hasher.
    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
