import FerryStore
import Foundation
import Testing

/// `SpareFiles`: deleted jobs' files kept, emptied, for the next downloads (bench P3's ext4 cost).
@Suite("Spare files")
struct SpareFilesTests {
    static func write(_ path: String, bytes: Int) throws {
        try Data(repeating: 7, count: bytes).write(to: URL(fileURLWithPath: path))
    }

    static func inode(_ path: String) throws -> UInt64 {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    static func size(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test("a recycled file leaves its path, is kept empty, and is moved whole to the next path asked for")
    func recycleAndTake() async throws {
        try await TemporaryDirectory.withFiles([:]) { root in
            let spares = SpareFiles(directory: "\(root)/spare")
            #expect(spares.moveSpareFile(to: "\(root)/new") == false)
            try Self.write("\(root)/job", bytes: 65536)
            let inode = try Self.inode("\(root)/job")

            spares.recycle("\(root)/job")
            #expect(!FileManager.default.fileExists(atPath: "\(root)/job"))
            #expect(spares.count == 1)
            let kept = try FileManager.default.contentsOfDirectory(atPath: "\(root)/spare")
            #expect(kept.count == 1)
            #expect(try Self.size("\(root)/spare/\(kept[0])") == 0)

            #expect(spares.moveSpareFile(to: "\(root)/new"))
            #expect(try Self.inode("\(root)/new") == inode)
            #expect(spares.count == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/spare").isEmpty)
            #expect(spares.moveSpareFile(to: "\(root)/newer") == false)
        }
    }

    @Test("beyond its capacity, and for a path that is gone, recycling just deletes")
    func capacity() async throws {
        try await TemporaryDirectory.withFiles([:]) { root in
            let spares = SpareFiles(directory: "\(root)/spare", capacity: 2)
            for name in ["a", "b", "c"] {
                try Self.write("\(root)/\(name)", bytes: 10)
                spares.recycle("\(root)/\(name)")
                #expect(!FileManager.default.fileExists(atPath: "\(root)/\(name)"))
            }
            #expect(spares.count == 2)
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/spare").count == 2)
            let bigger = SpareFiles(directory: "\(root)/spare", capacity: 3)
            bigger.recycle("\(root)/missing")
            #expect(bigger.count == 2)
        }
    }

    @Test("spares left by an earlier process are found; one taken by another process is skipped")
    func sharedDirectory() async throws {
        try await TemporaryDirectory.withFiles([:]) { root in
            let earlier = SpareFiles(directory: "\(root)/spare")
            for name in ["a", "b"] {
                try Self.write("\(root)/\(name)", bytes: 10)
                earlier.recycle("\(root)/\(name)")
            }
            let one = SpareFiles(directory: "\(root)/spare")
            let other = SpareFiles(directory: "\(root)/spare")
            #expect(one.count == 2)
            #expect(other.count == 2)
            #expect(one.moveSpareFile(to: "\(root)/x"))
            #expect(one.moveSpareFile(to: "\(root)/y"))
            // `other` still lists both, but both are gone: it says so instead of failing.
            #expect(other.moveSpareFile(to: "\(root)/z") == false)
            #expect(other.count == 0)
            #expect(!FileManager.default.fileExists(atPath: "\(root)/z"))
        }
    }
}
