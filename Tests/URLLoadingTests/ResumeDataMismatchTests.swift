import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A 206 that does not continue the partial file is never appended to it (DL-09, DL-10): one of
/// another entity (a server that ignores `If-Range` after the file changed) or one that starts at
/// another offset. The partial file is emptied and the download starts over with one more request,
/// without `Range`. Nested in `ResumeDataTests`, so serialized with it.
extension ResumeDataTests {
    @Suite("Resume data: 206 responses that do not fit")
    struct Mismatch {
        enum RecordedValidator: String, CaseIterable, Sendable {
            /// The resume data holds a strong ETag; the 206 brings another one.
            case entityTag
            /// The resume data holds only a Last-Modified date; the 206 brings a later one.
            case lastModified

            var query: String { self == .entityTag ? "" : "&etag=none" }
        }

        @Test("the entity changed and the server ignored If-Range (206 of the new version): the partial file is dropped and the download starts over from byte 0, never a mix (DL-09, DL-10)",
              arguments: RecordedValidator.allCases)
        func anotherEntity(_ validator: RecordedValidator) async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let length = ResumeDataTests.length
                let url = origin.url(
                    "/resumable/\(length)?stall_at=\(ResumeDataTests.pauseOffset)&changes=1&if_range=ignore\(validator.query)")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())
                switch validator {
                case .entityTag: #expect(resumeData.entityTag == "\"resumable-\(length)-v0\"")
                case .lastModified:
                    #expect(resumeData.entityTag == nil)
                    #expect(resumeData.lastModified != nil)
                }

                let second = try session.downloadTask(withResumeData: resumeData)
                second.computesSHA256 = true
                let outcome = await Resume.run(second)
                #expect(outcome.error == nil)
                // Request 1 got a 206 of version 1, which was refused; request 2 got version 2 whole.
                #expect(outcome.response?.statusCode == 200)
                #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(length))])
                let expected = Fixture.pattern(length, from: 2)
                #expect(outcome.contents == expected)
                #expect(second.sha256 == Resume.sha256(expected))
                let requests = origin.requests
                #expect(requests.count == 3)
                #expect(requests.dropFirst().first?.header("Range") == "bytes=\(ResumeDataTests.pauseOffset)-")
                #expect(requests.last?.header("Range") == nil)
                #expect(requests.last?.header("If-Range") == nil)
            }
        }

        @Test("a 206 that starts at another byte than the one asked for: the download starts over from byte 0 (DL-09, DL-10)")
        func anotherStart() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let url = origin.url("/resumable/\(ResumeDataTests.length)?stall_at=\(ResumeDataTests.pauseOffset)&range_from=1000")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())

                let second = try session.downloadTask(withResumeData: resumeData)
                let outcome = await Resume.run(second)
                #expect(outcome.error == nil)
                #expect(outcome.response?.statusCode == 200)
                #expect(outcome.resumptions == [.init(offset: 0, expectedTotal: Int64(ResumeDataTests.length))])
                #expect(outcome.contents == ResumeDataTests.body)
                let requests = origin.requests
                #expect(requests.count == 3)
                #expect(requests.last?.header("Range") == nil)
            }
        }

        @Test("when the request that starts over fails, no resume data names the dropped bytes (DL-08, DL-10)")
        func startingOverFails() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let length = ResumeDataTests.length
                // Request 2, the one from byte 0, drops its connection 1,000 bytes in.
                let url = origin.url(
                    "/resumable/\(length)?stall_at=\(ResumeDataTests.pauseOffset)&changes=1&if_range=ignore&drop_at=\(length),\(length),1000")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())

                let second = try session.downloadTask(withResumeData: resumeData)
                let outcome = await Resume.run(second)
                let error = try #require(outcome.error)
                // What it may carry continues version 2 from its first 1,000 bytes, and nothing of version 0.
                let carried = try #require(error.resumeData)
                do {
                    #expect(carried.entityTag == "\"resumable-\(length)-v2\"")
                    #expect(carried.offset == 1000)
                    #expect(try Data(contentsOf: carried.partialFile) == Fixture.pattern(1000, from: 2))
                }
            }
        }

        @Test("when the request that starts over gets an unrelated answer (503), the partial file no longer holds the old version's bytes (DL-10)")
        func startingOverIsRefused() async throws {
            try await Fixture.withOrigin { origin in
                let session = try Fixture.session()
                let directory = try TemporaryDirectory()
                let url = origin.url(
                    "/resumable/\(ResumeDataTests.length)?stall_at=\(ResumeDataTests.pauseOffset)&changes=1&if_range=ignore&statuses=200,200,503")
                let first = try await Resume.stalledDownload(session, url, in: directory, at: Int64(ResumeDataTests.pauseOffset))
                let resumeData = try #require(await first.cancelProducingResumeData())

                let second = try session.downloadTask(withResumeData: resumeData)
                second.temporaryDirectory = directory.url
                let outcome = await Resume.run(second)
                #expect(outcome.error == nil)
                #expect(outcome.response?.statusCode == 503)
                #expect(origin.requests.count == 3)
                // Version 0's prefix is gone: whoever resumes from the old resume data starts over.
                let left = (try? Data(contentsOf: resumeData.partialFile)) ?? Data()
                #expect(left.isEmpty)
            }
        }

        @Test("classifying a 206 against the recorded validator: the same strong ETag (or Last-Modified) appends, another or none restarts (DL-09, DL-10)")
        func classification() {
            func headers(_ fields: [String: String]) -> HTTPHeaders {
                var headers = HTTPHeaders()
                headers["Content-Range"] = "bytes 100-199/200"
                for (name, value) in fields { headers[name] = value }
                return headers
            }
            func classify(_ fields: [String: String], tag: String? = "\"a\"", date: String? = nil) -> ResumeResponse {
                ResumeResponse.classify(
                    statusCode: 206, headers: headers(fields), requestedOffset: 100,
                    validators: EntityValidators(entityTag: tag, lastModified: date))
            }
            func restarts(_ response: ResumeResponse) -> Bool {
                if case .restartWithoutRange = response { return true }
                return false
            }
            let date = "Wed, 21 Oct 2015 07:28:00 GMT"
            #expect(classify(["ETag": "\"a\""]) == .append(expectedTotal: 200))
            #expect(restarts(classify(["ETag": "\"b\""])))
            #expect(restarts(classify(["ETag": "W/\"a\""])))
            #expect(restarts(classify([:])))
            // The ETag decides when there is one, as If-Range sent it.
            #expect(restarts(classify(["ETag": "\"b\"", "Last-Modified": date], date: date)))
            #expect(classify(["Last-Modified": date], tag: nil, date: date) == .append(expectedTotal: 200))
            #expect(restarts(classify(["Last-Modified": "Wed, 21 Oct 2015 07:28:01 GMT"], tag: nil, date: date)))
            #expect(restarts(classify([:], tag: nil, date: date)))
            // Hand-made resume data with neither validator sent Range alone: nothing to compare.
            #expect(classify([:], tag: nil, date: nil) == .append(expectedTotal: 200))
        }
    }
}
