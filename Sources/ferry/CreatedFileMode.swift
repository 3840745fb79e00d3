import Foundation

/// The permissions a newly created file gets under the process's umask: 0666 & ~umask, as curl's
/// (and any shell redirection's) output files get.
enum CreatedFileMode {
    /// Reads the umask. `umask()` can only be read by setting it, so call this once at start-up,
    /// before any other thread creates files.
    static func current() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return 0o666 & ~mask
    }
}
