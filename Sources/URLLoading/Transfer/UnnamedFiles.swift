import Foundation

/// Download files without a name (Linux's `O_TMPFILE`, `DownloadTask.unnamedFileMode`): made in the
/// destination's directory with their final permissions, they get a name only when their consumer
/// links them in place. Until then no other process can find them, and a failure or a killed process
/// leaves nothing behind.
///
/// Cheaper than a named temporary file too: the directory takes one entry per file (the link)
/// instead of the temporary name's entry, its rename into place and its removal, and no `chmod`.
/// In a directory of thousands of files, ext4 does each of those as a lookup in its hashed tree
/// under the directory's lock.
public enum UnnamedFiles {
    /// Where an open file can be named: `/proc/self/fd/N`.
    static let descriptorDirectory = "/proc/self/fd"

    /// `O_TMPFILE`, which Glibc's module does not export (the macro is an expression of others):
    /// `__O_TMPFILE | O_DIRECTORY`, `__O_TMPFILE` being 020000000 on every Linux architecture Swift
    /// runs on.
    private static let openFlag: Int32 = 0o2000_0000 | O_DIRECTORY

    /// Linking goes through `/proc/self/fd`; without /proc mounted a file could be made but never
    /// linked.
    private static let canLink = access(descriptorDirectory, X_OK) == 0

    /// A new unnamed file in `directory`, open for reading and writing; nil where the kernel or the
    /// file system makes none (older kernels answer `EISDIR`, some file systems `EOPNOTSUPP`): the
    /// caller then makes a named file, which reports any error that stands.
    static func open(in directory: URL, mode: mode_t) -> Int32? {
        guard canLink else { return nil }
        let descriptor = Foundation.open(directory.path, openFlag | O_RDWR | O_CLOEXEC, mode)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Whether `file`, handed out with `.downloadFinished`, is an unnamed file, which `link(_:to:)`
    /// places (a named one is renamed).
    public static func isUnnamed(_ file: URL) -> Bool {
        file.path.hasPrefix(descriptorDirectory + "/")
    }

    /// Gives the unnamed `file` the name `destination`, replacing any file there, as a rename would:
    /// an existing destination is replaced in one step, through a link under a temporary name beside
    /// it. Call it before asking for the task's next event, which closes the file.
    public static func link(_ file: URL, to destination: URL) throws(TransferError) {
        if linkat(AT_FDCWD, file.path, AT_FDCWD, destination.path, AT_SYMLINK_FOLLOW) == 0 { return }
        guard errno == EEXIST else { throw failure(placing: destination) }
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".ferry-\(UUID.random().uuidString).tmp", isDirectory: false)
        guard linkat(AT_FDCWD, file.path, AT_FDCWD, temporary.path, AT_SYMLINK_FOLLOW) == 0 else {
            throw failure(placing: destination)
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let error = failure(placing: destination)
            unlink(temporary.path)
            throw error
        }
    }

    private static func failure(placing destination: URL) -> TransferError {
        DownloadFile.writeFailure("cannot place the download at \(destination.path)")
    }
}
