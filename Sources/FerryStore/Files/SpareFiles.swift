import Foundation
import Synchronization
import URLLoading

/// The files of deleted jobs, emptied and kept under `<data>/spare` for the next downloads to write
/// into, the way PostgreSQL recycles WAL segments instead of deleting and creating them.
///
/// Why: a download's new file costs an inode allocation, and on ext4 without a journal that
/// allocation skips, one by one, every inode freed in the last minute. After the bench deleted 2,000
/// jobs, creating the next 2,000 files took ferryd 2.2 to 2.5 s of kernel time (bench/README.md, P3).
/// A spare is moved with one rename and never goes through the allocator.
///
/// A spare holds no data: it is emptied before it is kept, and a download empties it again and makes it
/// private before writing (`SpareFileSource`). Several ferryd on one data directory share the spares they
/// found at start; a spare another process took first is skipped (its rename fails).
public final class SpareFiles: SpareFileSource {
    /// At most this many spares are kept; beyond it deleted files are unlinked. An empty file costs an
    /// inode and no data block.
    public static let defaultCapacity = 4096

    public let directory: String
    private let capacity: Int
    private let names: Mutex<[String]>

    /// Spares under `directory`, with the ones a previous run left there.
    public init(directory: String, capacity: Int = SpareFiles.defaultCapacity) {
        self.directory = directory
        self.capacity = capacity
        let found = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        names = Mutex(Array(found.prefix(capacity)))
    }

    /// How many spares this process knows of.
    public var count: Int { names.withLock { $0.count } }

    /// Deletes the file at `path`: empties it and keeps it as a spare, or unlinks it when there are
    /// enough spares or keeping it fails. The file is gone from `path` either way.
    public func recycle(_ path: String) {
        guard names.withLock({ $0.count }) < capacity, Self.empty(path) else {
            unlink(path)
            return
        }
        let name = UUID.random().uuidString.lowercased()
        let spare = "\(directory)/\(name)"
        if rename(path, spare) != 0 {
            // The first spare: make the directory, then try once more.
            guard errno == ENOENT, mkdir(directory, 0o700) == 0 || errno == EEXIST, rename(path, spare) == 0 else {
                unlink(path)
                return
            }
        }
        names.withLock { $0.append(name) }
    }

    /// Truncates the file to 0 bytes through a descriptor that is closed at once; refuses a file with
    /// another link (the HTTP cache's copy of a job's body), whose bytes must stay. ext4 writes a file
    /// out at its first close after a truncation (`auto_da_alloc`): spent here on an empty file, that
    /// flush no longer hits the download that reuses it, whose bytes then wait in the page cache like a
    /// new file's.
    private static func empty(_ path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        var status = stat()
        let emptied = fstat(descriptor, &status) == 0 && status.st_nlink == 1 && ftruncate(descriptor, 0) == 0
        return close(descriptor) == 0 && emptied
    }

    public func moveSpareFile(to path: String) -> Bool {
        while let name = names.withLock({ $0.popLast() }) {
            if rename("\(directory)/\(name)", path) == 0 { return true }
            // Another ferryd on this data directory took it first: try the next one.
        }
        return false
    }
}
