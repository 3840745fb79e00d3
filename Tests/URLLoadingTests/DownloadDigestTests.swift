import Crypto
import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// A download's SHA-256 is computed only when asked for (`DownloadTask.computesSHA256`), off the
/// loop thread, and covers every byte of the file however the download went (DL-05, DL-07, LC-02).
@Suite("Download digests", .timeLimit(.minutes(2)))
struct DownloadDigestTests {
    @Test("a download that does not ask for its digest gets none, and its file is whole (DL-05)")
    func noDigestUnlessAsked() async throws {
        try await Fixture.withOrigin { origin in
            let task = try Fixture.session().downloadTask(with: Fixture.request(origin.url("/bytes/3000000")))
            let outcome = await Resume.run(task)
            #expect(outcome.error == nil)
            #expect(outcome.contents == Fixture.pattern(3_000_000))
            #expect(task.fileLength == 3_000_000)
            #expect(task.sha256 == nil)
        }
    }

    @Test("a download that asks for its digest gets the SHA-256 of its whole multi-megabyte file (DL-05)")
    func digestOfAMultiMegabyteFile() async throws {
        try await Fixture.withOrigin { origin in
            let length = 12 << 20 + 12_345
            let task = try Fixture.session().downloadTask(with: Fixture.request(origin.url("/bytes/\(length)")))
            task.computesSHA256 = true
            let outcome = await Resume.run(task)
            #expect(outcome.error == nil)
            #expect(outcome.contents?.count == length)
            #expect(task.fileLength == Int64(length))
            #expect(task.sha256 == Resume.sha256(Fixture.pattern(length)))
        }
    }

    @Test("suspended and resumed on its connection, the download's digest covers every byte (LC-02)")
    func suspendedDownload() async throws {
        try await Fixture.withOrigin { origin in
            let length = 2_000_000
            // About 3 MB/s: still running when suspended.
            let task = try Fixture.session().downloadTask(with: Fixture.request(origin.url("/bytes/\(length)?pace_ms=20")))
            task.computesSHA256 = true
            let events = task.events
            task.resume()
            try await Fixture.eventually("some bytes") { task.progress.bytesReceived > 0 }
            task.suspend()
            try await Task.sleep(for: .milliseconds(300))
            task.resume()
            var contents: Data?
            for await event in events {
                if case .downloadFinished(let file) = event { contents = try? Data(contentsOf: file) }
            }
            #expect(task.error == nil)
            #expect(contents == Fixture.pattern(length))
            #expect(task.sha256 == Resume.sha256(Fixture.pattern(length)))
        }
    }

    @Test("paused with resume data and continued, both asking for the digest: the resume data holds the prefix's hash, the end the whole file's (DL-07, DL-09)")
    func pausedAndContinued() async throws {
        try await Fixture.withOrigin { origin in
            let session = try Fixture.session()
            let directory = try TemporaryDirectory()
            let (length, offset) = (ResumeDataTests.length, ResumeDataTests.pauseOffset)
            let first = try session.downloadTask(with: Fixture.request(origin.url("/resumable/\(length)?stall_at=\(offset)")))
            first.temporaryDirectory = directory.url
            first.computesSHA256 = true
            first.resume()
            try await Fixture.eventually(timeout: .seconds(90), "\(offset) bytes received") { first.progress.bytesReceived == Int64(offset) }
            let resumeData = try #require(await first.cancelProducingResumeData())
            #expect(resumeData.offset == Int64(offset))
            #expect(resumeData.sha256 == Resume.sha256(ResumeDataTests.body.prefix(offset)))
            #expect(first.sha256 == nil)

            let second = try session.downloadTask(withResumeData: resumeData)
            second.computesSHA256 = true
            let outcome = await Resume.run(second)
            #expect(outcome.error == nil)
            #expect(outcome.resumptions == [.init(offset: Int64(offset), expectedTotal: Int64(length))])
            #expect(outcome.contents == ResumeDataTests.body)
            #expect(second.sha256 == ResumeDataTests.bodySHA256)
        }
    }
}

/// `DownloadDigest` on real files, with the test as the loop thread that writes them.
@Suite("Download digest: hashing behind the writes")
struct DownloadDigestHashingTests {
    /// A file open for reading and writing, in `directory`.
    static func openFile(in directory: TemporaryDirectory) throws -> Int32 {
        let descriptor = open(directory.url.appendingPathComponent("file.bin").path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        return descriptor
    }

    /// Appends `bytes` with `write(2)`, as the loop does, and tells `digest` the new length.
    static func append(_ bytes: Data, to descriptor: Int32, written: inout Int64, digest: DownloadDigest) throws {
        let count = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        try #require(count == bytes.count)
        written += Int64(count)
        digest.written(upTo: written)
    }

    static func sha256(_ digest: DownloadDigest, ofFirst offset: Int64) async -> String? {
        await withCheckedContinuation { continuation in
            digest.sha256(ofFirst: offset) { continuation.resume(returning: $0) }
        }
    }

    @Test("digests asked at several offsets while writing goes on are each of exactly that prefix")
    func digestsAtOffsets() async throws {
        let directory = try TemporaryDirectory()
        let descriptor = try Self.openFile(in: directory)
        defer { close(descriptor) }
        let digest = DownloadDigest(hashing: descriptor, eager: true)
        let body = Fixture.pattern(5 << 20 + 3)
        let answers = Locked<[Int64: String?]>([:])
        var written: Int64 = 0
        var asked: [Int64] = []
        var position = 0
        while position < body.count {
            let end = min(position + 100_003, body.count)
            try Self.append(body[position..<end], to: descriptor, written: &written, digest: digest)
            position = end
            if asked.last.map({ written - $0 >= 1 << 20 }) ?? true {
                asked.append(written)
                let offset = written
                digest.sha256(ofFirst: offset) { answer in answers.withLock { $0[offset] = answer } }
            }
        }
        try await Fixture.eventually("every digest answered") { answers.withLock { $0.count } == asked.count }
        for offset in asked {
            #expect(answers.withLock { $0[offset] } == Resume.sha256(body.prefix(Int(offset))), "at \(offset)")
        }
        #expect(await Self.sha256(digest, ofFirst: written) == Resume.sha256(body))
        digest.close()
    }

    @Test("on demand, nothing is read until a digest is asked for; a later one reads only what was written since")
    func onDemand() async throws {
        let directory = try TemporaryDirectory()
        let descriptor = try Self.openFile(in: directory)
        defer { close(descriptor) }
        let digest = DownloadDigest(hashing: descriptor, eager: false)
        let body = Fixture.pattern(4 << 20)
        var written: Int64 = 0
        try Self.append(body.prefix(3 << 20), to: descriptor, written: &written, digest: digest)
        #expect(digest.bytesHashed == 0)
        #expect(await Self.sha256(digest, ofFirst: written) == Resume.sha256(body.prefix(3 << 20)))
        #expect(digest.bytesHashed == 3 << 20)
        try Self.append(body.suffix(from: 3 << 20), to: descriptor, written: &written, digest: digest)
        #expect(digest.bytesHashed == 3 << 20)
        #expect(await Self.sha256(digest, ofFirst: written) == Resume.sha256(body))
        digest.close()
    }

    @Test("an eager hash that falls behind holds the writer back, and calls it once it has caught up")
    func backPressure() async throws {
        let directory = try TemporaryDirectory()
        let descriptor = try Self.openFile(in: directory)
        defer { close(descriptor) }
        // Hashing is held back by suspending its queue: the writes run ahead of it for certain.
        let queue = HeldQueue()
        defer { queue.release() }
        let digest = DownloadDigest(hashing: descriptor, eager: true, maximumLag: 256 << 10, queue: queue.queue)
        let body = Fixture.pattern(2 << 20)
        var written: Int64 = 0
        try Self.append(body, to: descriptor, written: &written, digest: digest)
        let caughtUp = Locked(false)
        let keptUp = digest.keepsUp(orCallWhenCaughtUp: { caughtUp.withLock { $0 = true } })
        #expect(!keptUp)
        #expect(!caughtUp.withLock { $0 })
        queue.release()
        try await Fixture.eventually("the writer called back") { caughtUp.withLock { $0 } }
        let keepsUpNow = digest.keepsUp(orCallWhenCaughtUp: { Issue.record("called back while keeping up") })
        #expect(keepsUpNow)
        #expect(await Self.sha256(digest, ofFirst: written) == Resume.sha256(body))
        digest.close()
    }

    @Test("emptying the file drops the hash: a digest asked before is nil, later ones are of the new bytes")
    func reset() async throws {
        let directory = try TemporaryDirectory()
        let descriptor = try Self.openFile(in: directory)
        defer { close(descriptor) }
        let queue = HeldQueue()
        defer { queue.release() }
        let digest = DownloadDigest(hashing: descriptor, eager: false, queue: queue.queue)
        var written: Int64 = 0
        try Self.append(Fixture.pattern(2 << 20), to: descriptor, written: &written, digest: digest)
        let before = Locked<String??>(.none)
        digest.sha256(ofFirst: written) { answer in before.withLock { $0 = .some(answer) } }

        #expect(ftruncate(descriptor, 0) == 0 && lseek(descriptor, 0, SEEK_SET) == 0)
        digest.reset()
        #expect(before.withLock { $0 } == .some(nil))
        written = 0
        let replacement = Fixture.pattern(1 << 20, from: 7)
        try Self.append(replacement, to: descriptor, written: &written, digest: digest)
        queue.release()
        #expect(await Self.sha256(digest, ofFirst: written) == Resume.sha256(replacement))

        digest.close()
        #expect(await Self.sha256(digest, ofFirst: written) == nil)
    }
}

/// A serial queue that runs nothing until released (once; a test that fails early still releases
/// it, since libdispatch aborts when a suspended queue is freed).
final class HeldQueue: @unchecked Sendable {
    let queue = DispatchQueue(label: "held hashing")
    private var held = true

    init() { queue.suspend() }

    func release() {
        guard held else { return }
        held = false
        queue.resume()
    }
}
