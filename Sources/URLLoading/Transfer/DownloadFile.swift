import Foundation

/// A download's file, written from the loop thread with plain `write(2)`. Its SHA-256 is not computed
/// here: a `DownloadDigest` reads the written bytes back on another thread, eagerly when the task
/// asked for the digest, else only when resume data needs the hash of the bytes so far.
///
/// `length` only ever covers bytes that `write(2)` fully accepted: after a failed write the file
/// may hold a few more, which resuming cuts off.
///
/// `@unchecked Sendable`: one thread owns it at a time. A reopened partial file is made off the loop
/// and handed over to the loop thread once; after that only the loop thread touches it.
///
/// Every open file holds an exclusive `flock` until it is closed, which the kernel drops when the
/// process dies. A partial file another process still holds (a stopped process whose work was taken
/// over) is never written to: its verified prefix is copied into a new file instead, so that the two
/// writers never share bytes. Files are opened for reading too, for the digest's reads.
///
/// An unnamed file (`DownloadTask.unnamedFileMode`, Linux's `O_TMPFILE`) has no name in its directory
/// until its consumer links it: its `url` is `/proc/self/fd/N`, valid while it is open.
final class DownloadFile: @unchecked Sendable {
    let url: URL
    /// Made with `O_TMPFILE`: no name, no lock, never named by resume data.
    let isUnnamed: Bool
    /// How messages name it: its path, or the directory an unnamed file is in.
    private let name: String
    private var descriptor: Int32
    /// Bytes written.
    private(set) var length: Int64
    /// Made when the file is, for a task that asked for its digest (or a reopened file, whose prefix
    /// was hashed to check it); otherwise on the first demand.
    private var digest: DownloadDigest?

    private init(url: URL, descriptor: Int32, length: Int64) {
        self.url = url
        self.isUnnamed = false
        self.name = url.path
        self.descriptor = descriptor
        self.length = length
    }

    private init(unnamedIn directory: URL, descriptor: Int32) {
        self.url = URL(fileURLWithPath: "\(UnnamedFiles.descriptorDirectory)/\(descriptor)", isDirectory: false)
        self.isUnnamed = true
        self.name = "an unnamed file in \(directory.path)"
        self.descriptor = descriptor
        self.length = 0
    }

    /// The name prefix of temporary files unless the task sets another.
    static let defaultPrefix = "ferry-download-"

    /// A new, private (0600) file in `directory`, named `<prefix><UUID>.tmp`: a spare from `spares`
    /// when it has one, else created. `digesting`: hash it as it is written (`DownloadDigest`).
    /// `unnamedMode`: an unnamed file with these permissions instead, where the file system makes
    /// one (else a named file, as without it).
    static func create(
        in directory: URL, prefix: String = defaultPrefix, for source: URL, spares: (any SpareFileSource)? = nil,
        digesting: Bool = false, unnamedMode: mode_t? = nil
    ) throws(TransferError) -> DownloadFile {
        if let unnamedMode, let descriptor = UnnamedFiles.open(in: directory, mode: unnamedMode) {
            let file = DownloadFile(unnamedIn: directory, descriptor: descriptor)
            if digesting { file.startDigest(from: SHA256Hasher(), eager: true) }
            return file
        }
        // `isDirectory` given: otherwise Foundation asks the file system, one more call per file.
        let url = directory.appendingPathComponent("\(prefix)\(UUID.random().uuidString).tmp", isDirectory: false)
        let file = DownloadFile(url: url, descriptor: try openNew(at: url, spares: spares, for: source), length: 0)
        if digesting { file.startDigest(from: SHA256Hasher(), eager: true) }
        return file
    }

    /// The descriptor of a new file at `url`, locked: a spare moved there, else a file created.
    private static func openNew(at url: URL, spares: (any SpareFileSource)?, for source: URL) throws(TransferError) -> Int32 {
        if let spares, spares.moveSpareFile(to: url.path) {
            if let descriptor = openSpare(at: url.path) {
                _ = flock(descriptor, LOCK_EX | LOCK_NB)
                return descriptor
            }
            unlink(url.path)
        }
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw writeFailure("cannot create \(url.path)", failingURL: source)
        }
        // New, so nobody else can hold it: the lock only tells later readers that a writer is alive.
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        return descriptor
    }

    /// Gives the file its digest, whose state `hasher` is that of the first `length` bytes.
    private func startDigest(from hasher: SHA256Hasher, eager: Bool) {
        digest = DownloadDigest(hashing: descriptor, from: hasher, hashed: length, written: length, eager: eager)
    }

    /// Opens a spare file moved to `path`, emptied and private; nil when it is not a regular file of
    /// its own (a symbolic link, a FIFO, a file with another hard link), so that writing the body can
    /// never reach another file. Emptied only after that check: `O_TRUNC` would empty a linked file.
    /// `O_NONBLOCK` keeps a FIFO from blocking the open; it changes nothing for a regular file. An
    /// empty spare is not truncated again: ext4 writes a file out at its next close after a truncation
    /// (`auto_da_alloc`), which a new file would not pay.
    private static func openSpare(at path: String) -> Int32? {
        let descriptor = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink == 1,
              status.st_size == 0 || ftruncate(descriptor, 0) == 0, fchmod(descriptor, 0o600) == 0 else {
            Foundation.close(descriptor)
            return nil
        }
        return descriptor
    }

    /// What reopening a partial file found.
    enum PartialFileCheck: Equatable {
        /// The first `offset` bytes hash as recorded: writing continues after them.
        case intact
        /// No file: it was made again, empty.
        case missing
        /// Fewer than `offset` bytes: emptied, to be written from byte 0.
        case shorter(than: Int64, length: Int64)
        /// The first `offset` bytes hash differently: emptied, to be written from byte 0.
        case changed
        /// Intact, but another process still holds it open: its first `offset` bytes were copied into
        /// a new file, where writing continues; the held file is left to its holder.
        case copied
    }

    /// Reopens resume data's partial file: when its first `offset` bytes are the ones recorded, cuts
    /// off anything after them (bytes written after a snapshot) and continues there; otherwise empties
    /// it, so the download starts over in the same place. Reads up to `offset` bytes: call it off the
    /// loop thread.
    ///
    /// A file another process holds (its `flock`) is a writer that lost its job but has not stopped:
    /// it is neither cut nor emptied. Its verified prefix is copied into a new file named with
    /// `prefix` beside it (or a new empty file is made when the prefix does not check out), and the
    /// download goes on there.
    ///
    /// The file's digest starts from the hash of the verified prefix; `digesting` makes it follow the
    /// writes (`DownloadTask.computesSHA256`), otherwise it hashes only on demand.
    static func reopen(
        _ resumeData: ResumeData, prefix: String = defaultPrefix, digesting: Bool = false
    ) throws(TransferError) -> (file: DownloadFile, check: PartialFileCheck) {
        let path = resumeData.partialFile.path
        func failure(_ what: String) -> TransferError {
            writeFailure("\(what) the partial file \(path)", failingURL: resumeData.originalRequest.url)
        }
        var existed = true
        var descriptor = open(path, O_RDWR | O_CLOEXEC)
        if descriptor < 0 && errno == ENOENT {
            existed = false
            descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else { throw failure("cannot open") }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = failure("cannot inspect")
            Foundation.close(descriptor)
            throw error
        }
        let offset = resumeData.offset
        let check: PartialFileCheck
        var hasher = SHA256Hasher()
        // Held by another writer, or unlinked by one after this open: not this task's to write.
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 || !names(path, descriptor) {
            defer { Foundation.close(descriptor) }
            let intact = Int64(status.st_size) >= offset && hashBytes(of: descriptor, in: 0..<offset, into: &hasher)
                && hasher.currentHexDigest == resumeData.sha256.lowercased()
            let copy = try create(
                in: resumeData.partialFile.deletingLastPathComponent(), prefix: prefix, for: resumeData.originalRequest.url)
            do {
                if intact { try copy.copyPrefix(of: descriptor, length: offset) }
            } catch {
                copy.remove()
                throw error
            }
            copy.startDigest(from: intact ? hasher : SHA256Hasher(), eager: digesting)
            return (copy, intact ? .copied : .changed)
        }
        if !existed {
            check = .missing
        } else if Int64(status.st_size) < offset {
            check = .shorter(than: offset, length: Int64(status.st_size))
        } else {
            guard hashBytes(of: descriptor, in: 0..<offset, into: &hasher) else {
                let error = failure("cannot read")
                Foundation.close(descriptor)
                throw error
            }
            check = hasher.currentHexDigest == resumeData.sha256.lowercased() ? .intact : .changed
        }
        let keep: Int64 = check == .intact ? offset : 0
        if check != .intact { hasher = SHA256Hasher() }
        guard ftruncate(descriptor, off_t(keep)) == 0, lseek(descriptor, off_t(keep), SEEK_SET) == off_t(keep) else {
            let error = failure("cannot cut")
            Foundation.close(descriptor)
            throw error
        }
        let file = DownloadFile(url: resumeData.partialFile, descriptor: descriptor, length: keep)
        file.startDigest(from: hasher, eager: digesting)
        return (file, check)
    }

    /// Writes the first `length` bytes of `source` (already hashed by the caller) into this empty
    /// file, which has no digest yet.
    private func copyPrefix(of source: Int32, length: Int64) throws(TransferError) {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        while position < length {
            let count = pread(source, buffer.baseAddress, Int(min(Int64(chunk), length - position)), off_t(position))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw TransferError(.cannotWriteToFile, "cannot read the partial file to copy it into \(name)")
            }
            try write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            position += Int64(count)
        }
        self.length = length
    }

    /// Whether `path` still names the file open as `descriptor`.
    private static func names(_ path: String, _ descriptor: Int32) -> Bool {
        var atPath = stat()
        var open = stat()
        return stat(path, &atPath) == 0 && fstat(descriptor, &open) == 0 && atPath.st_dev == open.st_dev && atPath.st_ino == open.st_ino
    }

    /// Feeds the file's bytes in `range` to `hasher`; false on a read error or a short file.
    static func hashBytes(of descriptor: Int32, in range: Range<Int64>, into hasher: inout SHA256Hasher) -> Bool {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var position = range.lowerBound
        while position < range.upperBound {
            let wanted = Int(min(Int64(chunk), range.upperBound - position))
            let count = pread(descriptor, buffer.baseAddress, wanted, off_t(position))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            position += Int64(count)
        }
        return true
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.writeFailure("writing \(name) failed")
            }
            offset += written
        }
        length += Int64(bytes.count)
        digest?.written(upTo: length)
    }

    /// True while hashing keeps up with the writes (always, unless the digest is eager). Otherwise
    /// `onCaughtUp` is called once it has caught up: the caller stops receiving until then.
    func hashingKeepsUp(orCallWhenCaughtUp onCaughtUp: @autoclosure () -> @Sendable () -> Void) -> Bool {
        digest?.keepsUp(orCallWhenCaughtUp: onCaughtUp()) ?? true
    }

    /// Calls `reply` with the SHA-256 (lower-case hex) of the `length` bytes written so far, or nil
    /// when they cannot be read back (or the file is emptied or closed first); off the loop thread,
    /// or at once when they are already hashed. Writing may go on meanwhile. A file without a digest
    /// gets one now, which reads back its bytes from the first.
    func sha256(reply: @escaping @Sendable (String?) -> Void) {
        let digest = digest ?? DownloadDigest(hashing: descriptor, written: length, eager: false)
        self.digest = digest
        digest.sha256(ofFirst: length, reply: reply)
    }

    /// Empties the file, to write the body again from byte 0.
    func truncateToZero() throws(TransferError) {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw Self.writeFailure("cannot empty \(name)")
        }
        digest?.reset()
        length = 0
    }

    /// The error for a failed file call, from `errno`: a full file system or an exhausted quota is
    /// `insufficientStorage` (a caller may free space or report it as such), anything else
    /// `cannotWriteToFile`. Read `errno` before anything else can change it.
    static func writeFailure(_ what: String, failingURL: URL? = nil) -> TransferError {
        let number = errno
        let code: TransferError.Code = number == ENOSPC || number == EDQUOT ? .insufficientStorage : .cannotWriteToFile
        return TransferError(code, "\(what): \(String(cString: strerror(number)))", failingURL: failingURL)
    }

    func close() throws(TransferError) {
        guard descriptor >= 0 else { return }
        digest?.close()
        let result = Foundation.close(descriptor)
        descriptor = -1
        if result != 0 {
            throw Self.writeFailure("closing \(name) failed")
        }
    }

    /// The body is complete: a named file is closed; an unnamed one stays open, since closing it
    /// would free it, until its consumer has linked it (`close()` once it moved on).
    func finishWriting() throws(TransferError) {
        if isUnnamed {
            digest?.close()
        } else {
            try close()
        }
    }

    /// Closes the file and leaves it where it is: resume data now refers to it. (An unnamed file,
    /// which resume data never names, goes with its descriptor.)
    func keep() {
        try? close()
    }

    /// Unlinks the file while still holding it (its lock), so that nobody can take it up between.
    /// An unnamed file goes when it is closed.
    func remove() {
        if !isUnnamed { unlink(url.path) }
        try? close()
    }
}
