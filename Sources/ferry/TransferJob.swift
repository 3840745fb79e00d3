import Foundation
import URLLoading

/// One URL to fetch and where its body goes.
struct TransferJob: Sendable {
    enum Destination: Sendable {
        /// Streamed to standard output as it arrives (no `-o`, or `-o -`).
        case standardOutput
        /// Saved to this file, which appears only once the transfer succeeded.
        case file(URL)
        /// `--parts DIR`: each part of a multipart/x-mixed-replace response into its own file here.
        case parts(URL)
    }

    /// Position in the command (0 for a single URL, the list order for `-i`); keys progress.
    let index: Int
    /// The URL as the user wrote it, for messages.
    let displayURL: String
    let request: TransferRequest
    /// `--upload-file`: the body comes from this file through an upload task.
    let uploadFile: URL?
    let destination: Destination
}
