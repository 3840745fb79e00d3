import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// `multipart/x-mixed-replace` responses: each part is a response of its own, re-entering the response
/// step, and the body and progress start over with each part (LC-10, LG-05). The origin's
/// `/multipart-replace` route streams the parts with pauses between them.
@Suite("Multipart responses", .timeLimit(.minutes(2)))
struct MultipartResponseTests {
    /// What a task's events said, part by part.
    struct Observed {
        var responses: [TransferResponse] = []
        var completedParts: [(index: Int, part: String?, length: Int64)] = []
        var dataPerPart: [Data] = []
        var error: TransferError?
        var finishedFile: Data?
    }

    static func observe(_ events: TaskEvents) async -> Observed {
        var observed = Observed()
        for await event in events {
            switch event {
            case .response(let response):
                observed.responses.append(response)
                observed.dataPerPart.append(Data())
            case .data(let data):
                if observed.dataPerPart.isEmpty { observed.dataPerPart.append(Data()) }
                observed.dataPerPart[observed.dataPerPart.count - 1].append(data)
            case .partCompleted(let index, let response, let length):
                observed.completedParts.append((index, response.headers["X-Part"], length))
            case .downloadFinished(let file):
                observed.finishedFile = try? Data(contentsOf: file)
            case .completed(let error):
                observed.error = error
            default:
                break
            }
        }
        return observed
    }

    @Test("each part of a data task's multipart response is a response of its own; the body is the last part's (LC-10, LG-05)")
    func dataTaskDeliversEachPart() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let url = origin.url("/multipart-replace?parts=3&bytes=100&pause_ms=50&split=1&padding=1")
            let task = try session.dataTask(with: Fixture.request(url))
            let events = Task { [events = task.events] in await Self.observe(events) }
            task.resume()
            let observed = await events.value
            #expect(observed.error == nil)
            #expect(observed.responses.map { $0.headers["X-Part"] } == ["1", "2", "3"])
            for response in observed.responses {
                // The part's headers, the outer response's status and URL.
                #expect(response.statusCode == 200)
                #expect(response.mimeType == "text/plain")
                #expect(response.expectedContentLength == 100)
                #expect(response.url.absoluteString == url)
            }
            #expect(observed.completedParts.map(\.index) == [1, 2, 3])
            #expect(observed.completedParts.map(\.part) == ["1", "2", "3"])
            #expect(observed.completedParts.map(\.length) == [100, 100, 100])
            let (body, response) = try await task.value()
            // The data received before each new response is discarded (LG-05): the last part only.
            #expect(body == MultipartReplaceRoute.partBody(3, length: 100))
            #expect(response.headers["X-Part"] == "3")
            #expect(task.progress.bytesReceived == 100)
        }
    }

    @Test("a streamed data task carries each part's body after that part's response (LC-10)")
    func streamedPartsFollowTheirResponses() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let url = origin.url("/multipart-replace?parts=4&bytes=70000&pause_ms=20&split=1")
            let task = try session.streamingDataTask(with: Fixture.request(url))
            let events = Task { [events = task.events] in await Self.observe(events) }
            task.resume()
            let observed = await events.value
            #expect(observed.error == nil)
            #expect(observed.responses.count == 4)
            #expect(observed.dataPerPart == (1...4).map { MultipartReplaceRoute.partBody($0, length: 70000) })
        }
    }

    /// Records each didReceiveResponse with the data that follows it, and answers with `disposition`.
    final class PartDelegate: SessionDelegate {
        let parts = Locked<[(part: String?, data: Data)]>([])
        let disposition: @Sendable (TransferResponse) -> ResponseDisposition
        init(disposition: @escaping @Sendable (TransferResponse) -> ResponseDisposition = { _ in .allow }) {
            self.disposition = disposition
        }
        func session(_ session: Session, dataTask: DataTask, didReceive response: TransferResponse) async -> ResponseDisposition {
            parts.withLock { $0.append((response.headers["X-Part"], Data())) }
            // Answered late: the transfer must hold the rest of the body meanwhile.
            try? await Task.sleep(for: .milliseconds(20))
            return disposition(response)
        }
        func session(_ session: Session, dataTask: DataTask, didReceive data: Data) async {
            parts.withLock { $0[$0.count - 1].data.append(data) }
        }
    }

    @Test("a delegate is asked about every part's response, and hears each part's data after it (LC-10, LC-08, LG-05)")
    func delegateHearsEveryPart() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = PartDelegate()
            let session = try Fixture.session(delegate: delegate)
            // No pause between parts: a part's head and its neighbours arrive in one write.
            let task = try session.dataTask(with: Fixture.request(origin.url("/multipart-replace?parts=5&bytes=300")))
            task.resume()
            #expect(await task.waitUntilCompleted() == nil)
            session.finishTasksAndInvalidate()
            await session.waitUntilInvalidated()
            let parts = delegate.parts.withLock { $0 }
            #expect(parts.map(\.part) == ["1", "2", "3", "4", "5"])
            #expect(parts.map(\.data) == (1...5).map { MultipartReplaceRoute.partBody($0, length: 300) })
        }
    }

    @Test("a part's response answered with cancel ends the task there (LC-08, LC-10)")
    func cancellingAPart() async throws {
        try await Fixture.withOrigin { origin in
            let delegate = PartDelegate { $0.headers["X-Part"] == "2" ? .cancel : .allow }
            let session = try Fixture.session(delegate: delegate)
            let task = try session.dataTask(with: Fixture.request(origin.url("/multipart-replace?parts=4&bytes=50&pause_ms=20")))
            task.resume()
            #expect(await task.waitUntilCompleted()?.code == .cancelled)
            session.finishTasksAndInvalidate()
            await session.waitUntilInvalidated()
            #expect(delegate.parts.withLock { $0.map(\.part) } == ["1", "2"])
        }
    }

    @Test("a download's file holds the last part, written over from its start for each part; progress starts over (LC-10, LG-05)")
    func downloadKeepsTheLastPart() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            // Parts far larger than one curl write: a file not cut for each part would hold all three.
            let url = origin.url("/multipart-replace?parts=3&bytes=400000&pause_ms=30&split=1")
            let task = try session.downloadTask(with: Fixture.request(url))
            let events = Task { [events = task.events] in await Self.observe(events) }
            task.resume()
            let observed = await events.value
            #expect(observed.error == nil)
            #expect(observed.responses.map { $0.headers["X-Part"] } == ["1", "2", "3"])
            #expect(observed.completedParts.map(\.length) == [400_000, 400_000, 400_000])
            #expect(observed.finishedFile == MultipartReplaceRoute.partBody(3, length: 400_000))
            #expect(task.progress.bytesReceived == 400_000)
            #expect(task.progress.totalBytesExpectedToReceive == 400_000)
            #expect(task.response?.headers["X-Part"] == "3")
        }
    }

    @Test("a multipart download gives no resume data: its file is no range of one entity (LC-10, DL-07)")
    func noResumeData() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            // With a strong ETag, which a plain download's resume data would use.
            let task = try session.downloadTask(with: Fixture.request(origin.url("/multipart-replace?parts=20&bytes=1000&pause_ms=100&etag=1")))
            task.resume()
            try await Fixture.eventually("the second part") { (task.response?.headers["X-Part"]).flatMap { Int($0) } ?? 0 >= 2 }
            #expect(await task.cancelProducingResumeData() == nil)
        }
    }

    @Test("a stream that ends after a part's body, or after a delimiter line, still completes that part (LC-10)")
    func endsWithoutCloseDelimiter() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            for end in ["open", "delimiter"] {
                let task = try session.dataTask(with: Fixture.request(origin.url("/multipart-replace?parts=2&bytes=64&end=\(end)")))
                let events = Task { [events = task.events] in await Self.observe(events) }
                task.resume()
                let observed = await events.value
                #expect(observed.error == nil, "end=\(end)")
                #expect(observed.completedParts.map(\.index) == [1, 2], "end=\(end)")
                #expect(try await task.value().0 == MultipartReplaceRoute.partBody(2, length: 64), "end=\(end)")
            }
        }
    }

    @Test("a quoted boundary parameter works; without one the response is a plain one (LC-10)")
    func boundaryParameter() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let quoted = try await session.data(for: Fixture.request(origin.url("/multipart-replace?parts=2&bytes=10&quoted=1&boundary=a%20b")))
            #expect(quoted.0 == MultipartReplaceRoute.partBody(2, length: 10))

            let task = try session.dataTask(with: Fixture.request(origin.url("/multipart-replace?parts=2&bytes=10&no_boundary=1")))
            let events = Task { [events = task.events] in await Self.observe(events) }
            task.resume()
            let observed = await events.value
            #expect(observed.error == nil)
            #expect(observed.responses.count == 1)
            #expect(observed.completedParts.isEmpty)
            let (body, response) = try await task.value()
            #expect(response.mimeType == "multipart/x-mixed-replace")
            #expect(String(decoding: body, as: UTF8.self).hasPrefix("This preamble is not a part.\r\n--ferry-frame\r\n"))
        }
    }

    @Test("a part header block over the limit fails the task with a clear error, after the parts before it (LC-10)")
    func oversizedPartHead() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let task = try session.dataTask(with: Fixture.request(
                origin.url("/multipart-replace?parts=3&bytes=10&head_bytes=\(MultipartReplaceParser.maximumPartHeadBytes)")))
            let events = Task { [events = task.events] in await Self.observe(events) }
            task.resume()
            let observed = await events.value
            #expect(observed.error?.code == .badServerResponse)
            #expect(observed.error?.message.contains("part 2's header block is larger than 16384 bytes") == true)
            #expect(observed.completedParts.map(\.index) == [1])
        }
    }

    @Test("a body with no delimiter at all fails with a clear error (LC-10)")
    func noPartAtAll() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let task = try session.dataTask(with: Fixture.request(origin.url("/multipart-replace?parts=0&end=open")))
            task.resume()
            let error = await task.waitUntilCompleted()
            #expect(error?.code == .badServerResponse)
            #expect(error?.message.contains("the body has no part") == true)
        }
    }
}

/// The parser alone, on every way of cutting one body into writes: delimiters, heads and held-back
/// bytes split at each position (LC-10).
@Suite("Multipart parser")
struct MultipartReplaceParserTests {
    static let outer = TransferResponse(
        url: URL(string: "http://example.test/stream")!, statusCode: 200,
        headers: ["Content-Type": "multipart/x-mixed-replace; boundary=\"b-1\""])

    static let body = Array((
        "preamble\r\n--b-1 \t\r\nX-Part: 1\r\n\r\none\r\n--b-\r\r\n--b-1\r\n\r\n\r\n--b-1\r\n"
        + "X-Part: 3\r\nX-Long: a\r\n  b\r\n\r\nthree\r\n\r\n--b-1--  \r\nepilogue --b-1\r\n"
    ).utf8)

    /// The parts' (X-Part, body) and the lengths `.partEnded` reported, feeding `body` in pieces of `sizes`.
    static func parts(cutting body: [UInt8], at cuts: [Int]) throws -> [(String?, [UInt8], Int64)] {
        var parser = try #require(MultipartReplaceParser(response: outer))
        var parts: [(String?, [UInt8], Int64)] = []
        var start = 0
        for end in cuts + [body.count] where end >= start {
            try Array(body[start..<end]).withUnsafeBytes { bytes in
                var index = 0
                while let piece = try parser.next(in: bytes, at: &index) {
                    switch piece {
                    case .partStarted(let response): parts.append((response.headers["X-Part"], [], -1))
                    case .body(let range): parts[parts.count - 1].1 += bytes[range]
                    case .heldBody(let count): parts[parts.count - 1].1 += parser.delimiterPrefix(count)
                    case .partEnded(_, _, let length): parts[parts.count - 1].2 = length
                    }
                }
            }
            start = end
        }
        for piece in try parser.finish() {
            switch piece {
            case .heldBody(let count): parts[parts.count - 1].1 += parser.delimiterPrefix(count)
            case .partEnded(_, _, let length): parts[parts.count - 1].2 = length
            default: Issue.record("unexpected \(piece) at the end")
            }
        }
        return parts
    }

    @Test("every single cut gives the same parts")
    func everyCut() throws {
        let expected: [(String?, [UInt8], Int64)] = [
            ("1", Array("one\r\n--b-\r".utf8), 10), (nil, [], 0), ("3", Array("three\r\n".utf8), 7),
        ]
        for cut in 0...Self.body.count {
            let parts = try Self.parts(cutting: Self.body, at: [cut])
            #expect(parts.map(\.0) == expected.map(\.0), "cut at \(cut)")
            #expect(parts.map(\.1) == expected.map(\.1), "cut at \(cut)")
            #expect(parts.map(\.2) == expected.map(\.2), "cut at \(cut)")
        }
        // One byte a write.
        let bytewise = try Self.parts(cutting: Self.body, at: Array(1..<Self.body.count))
        #expect(bytewise.map(\.1) == expected.map(\.1))
    }

    @Test("a body that ends without a delimiter ends its part there, held-back bytes included")
    func endWithoutDelimiter() throws {
        let body = Array("--b-1\r\nX-Part: 1\r\n\r\nabc\r\n-".utf8)
        for cut in 0...body.count {
            let parts = try Self.parts(cutting: body, at: [cut])
            #expect(parts.map(\.1) == [Array("abc\r\n-".utf8)], "cut at \(cut)")
            #expect(parts.map(\.2) == [6], "cut at \(cut)")
        }
    }

    @Test("a folded header line continues its field")
    func foldedField() throws {
        var parser = try #require(MultipartReplaceParser(response: Self.outer))
        var started: [TransferResponse] = []
        try Self.body.withUnsafeBytes { bytes in
            var index = 0
            while let piece = try parser.next(in: bytes, at: &index) {
                if case .partStarted(let response) = piece { started.append(response) }
            }
        }
        #expect(started.last?.headers["X-Long"] == "a b")
        #expect(started.allSatisfy { $0.statusCode == 200 && $0.url == Self.outer.url })
    }

    @Test("a boundary parameter that is missing, empty or too long makes no parser")
    func unusableBoundaries() {
        for contentType in [
            "multipart/x-mixed-replace", "multipart/x-mixed-replace; boundary=", "multipart/x-mixed-replace; boundary=\"\"",
            "multipart/x-mixed-replace; boundary=\(String(repeating: "b", count: 71))", "multipart/mixed; boundary=b",
        ] {
            let response = TransferResponse(url: Self.outer.url, statusCode: 200, headers: ["Content-Type": contentType])
            #expect(MultipartReplaceParser(response: response) == nil, "\(contentType)")
        }
    }
}
