import Foundation

/// What background sessions refuse (BG-04): anything but http(s) (BG-04), data tasks (TT-03), and
/// uploads whose body is not a file (UP-13). Each would be lost with the process that made it: a
/// data task's body is in its memory, a stream is read once, and ftp and file transfers are not
/// what the seeds' background daemon carries. Refused when the task is made, with an
/// `invalidRequest` (an `unsupportedURL` for the scheme) that says why and what to use instead.
enum BackgroundRestrictions {
    static func refusal(for url: URL) -> TransferError? {
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            return TransferError(
                .unsupportedURL,
                "background sessions transfer only http and https URLs, not \(scheme.map { "\($0):" } ?? "this URL") (BG-04)",
                failingURL: url)
        }
        return nil
    }

    static func dataTaskRefusal(for url: URL) -> TransferError {
        TransferError(
            .invalidRequest,
            "background sessions have no data tasks: a body kept in memory would not outlive the process; "
                + "make a download task, whose body goes to a file (TT-03, BG-04)",
            failingURL: url)
    }

    static func refusal(forUploadOf body: UploadBody, to url: URL) -> TransferError? {
        if let refusal = refusal(for: url) { return refusal }
        switch body {
        case .file: return nil
        case .data:
            return TransferError(
                .invalidRequest,
                "background sessions upload only from a file: write the data to a file and upload that (UP-13, BG-04)",
                failingURL: url)
        case .stream:
            return TransferError(
                .invalidRequest,
                "background sessions upload only from a file: a stream cannot be read again after the process ends (UP-13, BG-04)",
                failingURL: url)
        }
    }

    static func uploadingDownloadRefusal(for url: URL) -> TransferError {
        TransferError(
            .invalidRequest,
            "background sessions do not send a body with a download task; use an upload task from a file (UP-13, BG-04)",
            failingURL: url)
    }
}
