/// Gives a download task an existing file to write its body into instead of a new one.
///
/// ferryd keeps the files of deleted jobs, emptied, as spares (`SpareFiles`). Reusing a file skips
/// the file system's inode allocation. That is cheap on most disks, but not on ext4 without a journal:
/// there every new inode skips, one by one, each inode freed in the last minute. On the bench's VM,
/// creating 2,000 files right after deleting 2,000 cost ferryd more CPU than everything else it did
/// (bench/README.md, P3).
public protocol SpareFileSource: Sendable {
    /// Moves a spare file to `path`, where nothing is, and returns true; or returns false when there is
    /// none, and the task creates a new file. The task empties the file and makes it private (0600)
    /// before writing, and uses it only if it is a regular file with no other link.
    func moveSpareFile(to path: String) -> Bool
}
