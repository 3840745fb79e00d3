import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

@Suite("Spare files for downloads", .timeLimit(.minutes(2)))
struct SpareFileTests {
    /// Hands out the files it was given, last first, by renaming them as `SpareFiles` does.
    final class Spares: SpareFileSource, @unchecked Sendable {
        private let paths: Locked<[String]>
        init(_ paths: [String]) { self.paths = Locked(paths) }
        var left: Int { paths.withLock { $0.count } }

        func moveSpareFile(to path: String) -> Bool {
            guard let spare = paths.withLock({ $0.popLast() }) else { return false }
            return rename(spare, path) == 0
        }
    }

    /// What the task handed over: the file's inode, mode and contents, read during the event.
    struct Handed: Equatable {
        var inode: UInt64
        var mode: Int
        var contents: Data
    }

    static func download(_ url: String, spares: Spares, into directory: URL) async throws -> Handed? {
        let session = try Fixture.session()
        let task = try session.downloadTask(with: Fixture.request(url))
        task.temporaryDirectory = directory
        task.spareFiles = spares
        let events = task.events
        task.resume()
        var handed: Handed?
        for await event in events {
            if case .downloadFinished(let file) = event {
                let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                handed = Handed(
                    inode: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0,
                    mode: (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0,
                    contents: try Data(contentsOf: file))
            }
        }
        return handed
    }

    static func inode(_ path: String) throws -> UInt64 {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    @Test("a download writes into the spare file it is given: emptied, private, the same inode")
    func usesSpare() async throws {
        try await Fixture.withOrigin { origin in
            let spareDirectory = try TemporaryDirectory()
            let downloads = try TemporaryDirectory()
            let spare = spareDirectory.url.appendingPathComponent("spare").path
            // Longer than the body and readable by others: both must not survive.
            try Data(repeating: 0x41, count: 200_000).write(to: URL(fileURLWithPath: spare))
            chmod(spare, 0o644)
            let spareInode = try Self.inode(spare)
            let spares = Spares([spare])

            let handed = try #require(try await Self.download(origin.url("/bytes/100000"), spares: spares, into: downloads.url))
            #expect(handed == Handed(inode: spareInode, mode: 0o600, contents: Fixture.pattern(100_000)))
            #expect(spares.left == 0)
            #expect(try spareDirectory.contents().isEmpty)
        }
    }

    @Test("with no spare left, the download makes a new file")
    func noSpareLeft() async throws {
        try await Fixture.withOrigin { origin in
            let downloads = try TemporaryDirectory()
            let handed = try #require(try await Self.download(origin.url("/bytes/5000"), spares: Spares([]), into: downloads.url))
            #expect(handed.mode == 0o600)
            #expect(handed.contents == Fixture.pattern(5000))
        }
    }

    @Test("a spare that is a symbolic link or has another hard link is not written: a new file is made")
    func linkedSparesAreRefused() async throws {
        try await Fixture.withOrigin { origin in
            let spareDirectory = try TemporaryDirectory()
            let downloads = try TemporaryDirectory()
            let victim = spareDirectory.url.appendingPathComponent("victim").path
            let original = Data("must stay as it is".utf8)
            try original.write(to: URL(fileURLWithPath: victim))
            let symbolic = spareDirectory.url.appendingPathComponent("symbolic").path
            let hard = spareDirectory.url.appendingPathComponent("hard").path
            #expect(symlink(victim, symbolic) == 0)
            #expect(link(victim, hard) == 0)
            let victimInode = try Self.inode(victim)

            for spare in [symbolic, hard] {
                let handed = try #require(try await Self.download(origin.url("/bytes/3000"), spares: Spares([spare]), into: downloads.url))
                #expect(handed.inode != victimInode)
                #expect(handed.contents == Fixture.pattern(3000))
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == original)
            // The refused spares were removed, not left in the download directory.
            #expect(try downloads.contents().isEmpty)
        }
    }
}
