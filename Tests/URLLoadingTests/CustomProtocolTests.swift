import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Custom protocols end to end (PR-04..PR-08, PR-13, RD-06): `memo:` serves real files, `claim:`
/// shows the order loaders are asked in, and a relay takes http over for a loopback origin.
@Suite("Custom protocols", .timeLimit(.minutes(2)))
struct CustomProtocolTests {
    /// A session whose tasks `memo:` loads, with `delegate` if given.
    private func memoSession(
        delegate: (any SessionDelegate)? = nil, _ configure: (inout SessionConfiguration) -> Void = { _ in }
    ) throws -> Session {
        try Fixture.session({ configuration in
            configuration.protocolClasses = [MemoProtocol.self]
            configure(&configuration)
        }, delegate: delegate)
    }

    private func write(_ data: Data, _ name: String, in directory: TemporaryDirectory) throws -> URL {
        let file = directory.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }

    @Test("a data task gets a memo: file's bytes, progress and metrics; the protocol is started and stopped once (PR-04, PR-06)")
    func dataTask() async throws {
        let directory = try TemporaryDirectory()
        let file = try write(Fixture.pattern(200_000), "page.bin", in: directory)
        let session = try memoSession()
        let task = try session.dataTask(with: TransferRequest(url: MemoProtocol.url(file)))
        task.resume()
        let (data, response) = try await task.value()
        #expect(data == Fixture.pattern(200_000))
        #expect(response.statusCode == 200)
        #expect(response.expectedContentLength == 200_000)
        #expect(task.state == .completed)
        #expect(task.progress.bytesReceived == 200_000)
        #expect(task.progress.totalBytesExpectedToReceive == 200_000)
        let transactions = task.metrics.transactions
        #expect(transactions.count == 1)
        #expect(transactions.first?.networkProtocolName == "memo")
        #expect(transactions.first?.responseBodyBytes == 200_000)
        #expect(transactions.first?.outcome == .completed)
        #expect(MemoProtocol.events(under: directory.url) == ["start \(file.path)", "finish", "stop"])
    }

    @Test("a delegate hears a memo: body piece by piece (PR-06, LC-13)")
    func streamedToDelegate() async throws {
        let directory = try TemporaryDirectory()
        let file = try write(Fixture.pattern(100_000), "streamed.bin", in: directory)
        let delegate = RecordingDelegate()
        let session = try memoSession(delegate: delegate)
        let task = try session.dataTask(with: TransferRequest(url: MemoProtocol.url(file)))
        task.resume()
        #expect(await task.waitUntilCompleted() == nil)
        try await Fixture.eventually("the delegate heard the completion") { delegate.entries.contains { $0.hasPrefix("complete") } }
        #expect(delegate.received.withLock { $0 } == Fixture.pattern(100_000))
        #expect(delegate.entries.first == "response 200")
    }

    @Test("download tasks and download(for:to:) write a memo: file to disk (PR-04, DL-02)")
    func download() async throws {
        let directory = try TemporaryDirectory()
        let file = try write(Fixture.pattern(300_000), "big.bin", in: directory)
        let session = try memoSession()
        let destination = directory.url.appendingPathComponent("copy.bin")
        let response = try await session.download(for: TransferRequest(url: MemoProtocol.url(file)), to: destination)
        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == Fixture.pattern(300_000))

        let delegate = RecordingDelegate()
        let delegated = try memoSession(delegate: delegate)
        let task = try delegated.downloadTask(with: TransferRequest(url: MemoProtocol.url(file)))
        task.resume()
        #expect(await task.waitUntilCompleted() == nil)
        try await Fixture.eventually("the delegate heard the completion") { delegate.entries.contains { $0.hasPrefix("complete") } }
        #expect(delegate.finishedDownloads.withLock { $0 } == [Fixture.pattern(300_000)])
        #expect(delegate.writtenTotals.withLock { $0 }.last == 300_000)
    }

    @Test("a protocol's redirect goes through the delegate: followed to memo: and to http, or refused (PR-06, RD-02)")
    func redirect() async throws {
        try await Fixture.withOrigin { origin in
            let directory = try TemporaryDirectory()
            let target = try write(Fixture.pattern(5_000), "target.bin", in: directory)
            let moved = try write(Data(MemoProtocol.url(target).absoluteString.utf8), "old.moved", in: directory)
            let toOrigin = try write(Data(origin.url("/bytes/700").utf8), "gone.moved", in: directory)

            let delegate = RecordingDelegate()
            let session = try memoSession(delegate: delegate)
            let (data, response) = try await session.data(for: TransferRequest(url: MemoProtocol.url(moved)))
            #expect(data == Fixture.pattern(5_000))
            #expect(response.url == MemoProtocol.url(target))
            try await Fixture.eventually("the delegate heard the redirect") { delegate.entries.contains("redirected \(target.path)") }
            #expect(delegate.entries.contains("willRedirect 301 GET \(target.path)"))
            #expect(MemoProtocol.events(under: moved) == ["start \(moved.path)", "stop"])

            let task = try session.dataTask(with: TransferRequest(url: MemoProtocol.url(toOrigin)))
            task.resume()
            #expect(await task.waitUntilCompleted() == nil)
            #expect(task.metrics.redirectCount == 1)
            #expect(task.response?.statusCode == 200)
            #expect(task.metrics.transactions.map(\.networkProtocolName) == ["memo", "http/1.1"])
            #expect(origin.requests.map(\.uri) == ["/bytes/700"])

            let refusing = try memoSession(delegate: RecordingDelegate(redirect: { _, _ in .refuse }))
            let (refusedBody, refused) = try await refusing.data(for: TransferRequest(url: MemoProtocol.url(moved)))
            #expect(refused.statusCode == 301)
            #expect(refusedBody.isEmpty)
        }
    }

    @Test("a protocol's failure is the task's error, and the protocol is stopped (PR-06, ER-01)")
    func failure() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.bin")
        let session = try memoSession()
        let error = await #expect(throws: TransferError.self) {
            _ = try await session.data(for: TransferRequest(url: MemoProtocol.url(missing)))
        }
        #expect(error?.code == .fileDoesNotExist)
        #expect(MemoProtocol.events(under: directory.url) == ["start \(missing.path)", "stop"])
    }

    @Test("a protocol's challenge goes to the task's delegate and its answer back to the protocol (PR-07, AU-05)")
    func challenge() async throws {
        let directory = try TemporaryDirectory()
        let secret = try write(Fixture.pattern(3_000), "locked/secret.bin", in: directory)
        let asked = Locked<[String]>([])
        let answering = { (answer: ChallengeDisposition) in
            ChallengeAnswers { challenge in
                asked.withLock { $0.append(challenge.protectionSpace.realm ?? "?") }
                return answer
            }
        }
        let reader = try memoSession(delegate: answering(.useCredential(Credential(user: "reader", password: "secret"))))
        let (data, response) = try await reader.data(for: TransferRequest(url: MemoProtocol.url(secret)))
        #expect(response.statusCode == 200)
        #expect(data == Fixture.pattern(3_000))
        #expect(asked.withLock { $0 } == ["locked"])
        #expect(MemoProtocol.events(under: secret).contains("answer credential reader"))

        let without = try memoSession(delegate: answering(.continueWithoutCredential))
        let (denied, deniedResponse) = try await without.data(for: TransferRequest(url: MemoProtocol.url(secret)))
        #expect(deniedResponse.statusCode == 401)
        #expect(denied.isEmpty)

        let cancelling = try memoSession(delegate: answering(.cancel))
        let cancelled = await #expect(throws: TransferError.self) {
            _ = try await cancelling.data(for: TransferRequest(url: MemoProtocol.url(secret)))
        }
        #expect(cancelled?.code == .cancelled)
        #expect(asked.withLock { $0 } == ["locked", "locked", "locked"])
    }

    @Test("default handling answers a protocol's challenge with the credential storage's default (PR-07, AU-14)")
    func challengeDefaultHandling() async throws {
        let directory = try TemporaryDirectory()
        let secret = try write(Fixture.pattern(1_000), "locked/default.bin", in: directory)
        let storage = InMemoryCredentialStorage()
        await storage.setDefaultCredential(Credential(user: "reader", password: "secret"), for: MemoProtocol.lockedSpace)
        let session = try memoSession { $0.credentialStorage = storage }
        let (data, _) = try await session.data(for: TransferRequest(url: MemoProtocol.url(secret)))
        #expect(data == Fixture.pattern(1_000))

        let empty = try memoSession { $0.credentialStorage = InMemoryCredentialStorage() }
        let (_, response) = try await empty.data(for: TransferRequest(url: MemoProtocol.url(secret)))
        #expect(response.statusCode == 401)
        #expect(MemoProtocol.events(under: secret).filter { $0.hasPrefix("answer") }
            == ["answer credential reader", "answer continue without credential"])
    }

    @Test("cancelling a task stops its protocol midway (PR-06, LC-15)")
    func cancelStopsLoading() async throws {
        let directory = try TemporaryDirectory()
        let file = try write(Fixture.pattern(2_000_000), "slow.bin", in: directory)
        let session = try memoSession()
        let task = try session.dataTask(with: TransferRequest(url: MemoProtocol.url(file, slow: true)))
        task.resume()
        try await Fixture.eventually("some of the body arrived") { task.progress.bytesReceived > 0 }
        task.cancel()
        #expect(await task.waitUntilCompleted()?.code == .cancelled)
        #expect(task.progress.bytesReceived < 2_000_000)
        #expect(MemoProtocol.events(under: directory.url) == ["start \(file.path)", "stop"])
        #expect(task.metrics.transactions.first?.outcome == .stopped)
    }

    @Test("a canonical form is a redirect without a response for the delegate: followed, refused, replaced (PR-13, RD-06)")
    func canonicalPseudoRedirect() async throws {
        let directory = try TemporaryDirectory()
        let file = try write(Fixture.pattern(2_000), "canon/file.bin", in: directory)
        let other = try write(Fixture.pattern(10), "canon/other.bin", in: directory)
        let dotted = URL(string: "memo://" + directory.url.path + "/canon/./file.bin")!
        let canonical = MemoProtocol.url(file)

        let seen = Locked<[String]>([])
        let following = CanonicalAnswers { canonical, original in
            seen.withLock { $0.append("\(original.url.path) -> \(canonical.url.path)") }
            return .follow(canonical)
        }
        let session = try memoSession(delegate: following)
        let task = try session.dataTask(with: TransferRequest(url: dotted))
        task.resume()
        let (data, _) = try await task.value()
        #expect(data == Fixture.pattern(2_000))
        #expect(seen.withLock { $0 } == ["\(dotted.path) -> \(file.path)"])
        #expect(task.originalRequest.url == dotted)
        #expect(task.currentRequest.url == canonical)
        #expect(task.metrics.redirectCount == 0)

        let refusing = try memoSession(delegate: CanonicalAnswers { _, _ in .refuse })
        _ = try await refusing.data(for: TransferRequest(url: dotted))
        let replacing = try memoSession(delegate: CanonicalAnswers { _, _ in .follow(TransferRequest(url: MemoProtocol.url(other))) })
        let (replaced, _) = try await replacing.data(for: TransferRequest(url: dotted))
        #expect(replaced == Fixture.pattern(10))
        let cancelling = try memoSession(delegate: CanonicalAnswers { _, _ in .cancel })
        let error = await #expect(throws: TransferError.self) { _ = try await cancelling.data(for: TransferRequest(url: dotted)) }
        #expect(error?.code == .cancelled)

        // Loaded as asked: canonical, then as it was (refused), then the replacement; never when cancelled.
        #expect(MemoProtocol.events(under: directory.url).filter { $0.hasPrefix("start") }
            == ["start \(file.path)", "start \(dotted.path)", "start \(other.path)"])
    }

    @Test("a session's protocols are asked in their order, before the registered ones, newest registered first (PR-04, PR-08)")
    func canInitOrder() async throws {
        let claim = TransferRequest(url: Fixture.url("claim://thing"))
        let firstThenSecond = try Fixture.session { $0.protocolClasses = [FirstClaimant.self, SecondClaimant.self] }
        #expect(try await firstThenSecond.data(for: claim).0 == Data("first".utf8))
        let secondThenFirst = try Fixture.session { $0.protocolClasses = [SecondClaimant.self, FirstClaimant.self] }
        #expect(try await secondThenFirst.data(for: claim).0 == Data("second".utf8))

        let global = TransferRequest(url: Fixture.url("claim-global://thing"))
        let plain = try Fixture.session()
        ProtocolRegistry.register(FirstClaimant.self)
        ProtocolRegistry.register(SecondClaimant.self)
        defer {
            ProtocolRegistry.unregister(FirstClaimant.self)
            ProtocolRegistry.unregister(SecondClaimant.self)
        }
        #expect(try await plain.data(for: global).0 == Data("second".utf8))
        ProtocolRegistry.register(FirstClaimant.self)
        #expect(try await plain.data(for: global).0 == Data("first".utf8))
        let ownFirst = try Fixture.session { $0.protocolClasses = [SecondClaimant.self] }
        #expect(try await ownFirst.data(for: global).0 == Data("second".utf8))

        ProtocolRegistry.unregister(FirstClaimant.self)
        ProtocolRegistry.unregister(SecondClaimant.self)
        let error = await #expect(throws: TransferError.self) { _ = try await plain.data(for: global) }
        #expect(error?.code == .unsupportedURL)
    }

    @Test("a protocol takes http over from the engine; its mark keeps it from taking its own request (PR-04, PR-05)")
    func takesOverHTTP() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session { $0.protocolClasses = [RelayProtocol.self] }
            let (data, response) = try await session.data(for: Fixture.request(origin.url("/echo")))
            #expect(response.statusCode == 200)
            #expect(try Fixture.echo(data).header("X-Relayed-By") == "RelayProtocol")
            #expect(origin.requests.count == 1)

            let directory = try TemporaryDirectory()
            let destination = directory.url.appendingPathComponent("relayed.bin")
            _ = try await session.download(for: Fixture.request(origin.url("/bytes/70000")), to: destination)
            #expect(try Data(contentsOf: destination) == Fixture.pattern(70_000))
            #expect(origin.requests.count == 2)
        }
    }

    @Test("protocol properties ride on the request, compare and survive encoding (PR-05)")
    func properties() throws {
        var request = TransferRequest(url: Fixture.url("memo:///x"))
        let plain = request
        MemoProtocol.setProperty("1", forKey: "seen", in: &request)
        #expect(MemoProtocol.property(forKey: "seen", in: request) == "1")
        #expect(request != plain)
        let decoded = try JSONDecoder().decode(TransferRequest.self, from: JSONEncoder().encode(request))
        #expect(MemoProtocol.property(forKey: "seen", in: decoded) == "1")
        MemoProtocol.removeProperty(forKey: "seen", in: &request)
        #expect(request == plain)
    }
}

/// Answers every challenge with `answer`'s result (and only decides: events stay with the task).
private final class ChallengeAnswers: SessionDelegate {
    let answer: @Sendable (AuthenticationChallenge) -> ChallengeDisposition
    init(_ answer: @escaping @Sendable (AuthenticationChallenge) -> ChallengeDisposition) { self.answer = answer }
    var receivesTaskEvents: Bool { false }
    func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge) async -> ChallengeDisposition {
        answer(challenge)
    }
}

/// Answers a protocol's canonical form (RD-06) with `answer`'s result.
private final class CanonicalAnswers: SessionDelegate {
    let answer: @Sendable (TransferRequest, TransferRequest) -> RedirectDisposition
    init(_ answer: @escaping @Sendable (TransferRequest, TransferRequest) -> RedirectDisposition) { self.answer = answer }
    var receivesTaskEvents: Bool { false }
    func session(_ session: Session, task: SessionTask, willSendCanonicalRequest canonical: TransferRequest,
                 insteadOf request: TransferRequest) async -> RedirectDisposition {
        answer(canonical, request)
    }
}
