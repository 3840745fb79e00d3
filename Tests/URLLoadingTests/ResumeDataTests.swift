import Crypto
import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Pausing, failing and continuing downloads (DL-07..DL-12), against `/resumable/{n}`, which stops a
/// download's first request at a known offset and can change its entity, ignore ranges or encode
/// its body (see `ResumableRoute`).
///
/// Serialized: two dozen downloads of a few hundred kB at once, with their partial files hashed for
/// resume data, weigh on the timing-sensitive tests of other suites running alongside on a small machine.
@Suite("Resume data", .serialized, .timeLimit(.minutes(3)))
struct ResumeDataTests {
    // Small enough that a dozen tests running at once in a debug build do not starve each other.
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
            second.computesSHA256 = true
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
            task.computesSHA256 = true
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
            second.computesSHA256 = true
            let outcome = await Resume.run(second)
            #expect(outcome.error == nil)
            #expect(outcome.response?.httpVersion == "HTTP/2")
            #expect(outcome.response?.statusCode == 206)
            #expect(outcome.contents == Self.body)
            #expect(second.sha256 == Self.bodySHA256)
            #expect(origin.requests.last?.header("Range") == "bytes=\(Self.pauseOffset)-")
        }
    }
}
