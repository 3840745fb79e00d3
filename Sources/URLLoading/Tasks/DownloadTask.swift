import Foundation

/// A task whose body goes to a temporary file (TT-04, DL-05), handed to the consumer with
/// `.downloadFinished` and deleted once the consumer moves on (DL-02).
///
/// A download can be paused by cancelling it with resume data (DL-07), continues after a failure
/// from the resume data in its error (DL-08), and can be snapshotted while it runs so that even a
/// killed process can continue it (DL-12). See `ResumeData`.
///
/// Made with `Session.downloadTask(with:uploading:)`, it first sends a body as an upload task does
/// (TT-09, UP-11); such a download is never resumable.
public final class DownloadTask: SessionTask, @unchecked Sendable {
    private struct DownloadState {
        var temporaryDirectory: URL?
        var spareFiles: (any SpareFileSource)?
        var acceptsCompressedContent = false
        var temporaryFilePrefix = DownloadFile.defaultPrefix
        var producesResumeDataOnCancel = false
        var computesSHA256 = false
        var unnamedFileMode: mode_t?
        var resumeOffset: Int64?
        var fileLength: Int64?
        var sha256: String?
        /// A background download that failed on the network continues from here (BG-06), once it did.
        var retried = false
        var retrySource: ResumeData?
        /// Taken up from a background store: the partial file may hold more than the resume data says.
        var extendsResumeDataOverPartialFile = false
    }

    private let downloadState = Locked(DownloadState())

    /// The resume data this task continues from (`Session.downloadTask(withResumeData:)`), else nil.
    public let resumeSource: ResumeData?

    /// The body this download sends (`Session.downloadTask(with:uploading:)`), as an upload task
    /// would; nil for a plain download. A download that sends a body never produces resume data.
    public let uploadBody: UploadBody?

    init(
        session: Session, identifier: Int, request: TransferRequest, resumingFrom resumeSource: ResumeData? = nil,
        uploading uploadBody: UploadBody? = nil
    ) {
        self.resumeSource = resumeSource
        self.uploadBody = uploadBody
        super.init(session: session, identifier: identifier, request: request, kind: .download)
    }

    /// Where the temporary file is made; the system temporary directory unless set before `resume()`.
    /// Putting it on the destination's file system makes the final move a rename, not a copy. A task
    /// made from resume data keeps writing the partial file where it is; this directory then only
    /// receives the body of an unrelated response (a 404 instead of the rest).
    public var temporaryDirectory: URL? {
        get { downloadState.withLock { $0.temporaryDirectory } }
        set { downloadState.withLock { $0.temporaryDirectory = newValue } }
    }

    /// Where the temporary file comes from when one is available: a spare file moved into
    /// `temporaryDirectory` instead of a new one (see `SpareFileSource`). Set before `resume()`.
    public var spareFiles: (any SpareFileSource)? {
        get { downloadState.withLock { $0.spareFiles } }
        set { downloadState.withLock { $0.spareFiles = newValue } }
    }

    /// How the names of this task's temporary files begin (`<prefix><UUID>.tmp`), so that whoever
    /// keeps the directory can tell whose they are; `ferry-download-` unless set before `resume()`.
    public var temporaryFilePrefix: String {
        get { downloadState.withLock { $0.temporaryFilePrefix } }
        set { downloadState.withLock { $0.temporaryFilePrefix = newValue } }
    }

    /// Send `Accept-Encoding` and write the decoded body. Off by default, whatever the session's
    /// `acceptsCompressedContent`: the file then holds the bytes the server holds (a checksum of them
    /// checks out), and their offsets are the server's, so a `Range` request can continue them. A
    /// compressed (decoded) body has no such offsets: such a download makes no resume data and starts
    /// over from byte 0 when resumed (DL-10). Set before `resume()`.
    public var acceptsCompressedContent: Bool {
        get { downloadState.withLock { $0.acceptsCompressedContent } }
        set { downloadState.withLock { $0.acceptsCompressedContent = newValue } }
    }

    /// Compute the SHA-256 of the file handed over (`sha256`). Off by default: hashing costs about
    /// half a second of CPU per GiB, which a download that checks nothing should not pay. When on,
    /// the hash follows the writes on another thread (never the transfer loop's), reading back what
    /// was written, and the download stops receiving while hashing is far behind. A task made from
    /// resume data continues the hash of the partial file's prefix, checked when it reopens it. Set
    /// before `resume()`.
    public var computesSHA256: Bool {
        get { downloadState.withLock { $0.computesSHA256 } }
        set { downloadState.withLock { $0.computesSHA256 = newValue } }
    }

    /// Write the body to an unnamed file (Linux's `O_TMPFILE`) in `temporaryDirectory`, made with these
    /// permissions, rather than to a private named one: until the consumer links it, no name shows
    /// it, and a failed task or a killed process leaves nothing behind (`UnnamedFiles`).
    /// `.downloadFinished` then hands out `/proc/self/fd/N`, open until the consumer asks for the next
    /// event; `UnnamedFiles.link(_:to:)` places it. Such a task makes no resume data (nothing could
    /// find the partial file again). Where the kernel or file system makes no unnamed file, the task
    /// writes a named one as without this (`UnnamedFiles.isUnnamed` tells them apart). Nil (the
    /// default): a named file. Set before `resume()`.
    public var unnamedFileMode: mode_t? {
        get { downloadState.withLock { $0.unnamedFileMode } }
        set { downloadState.withLock { $0.unnamedFileMode = newValue } }
    }

    /// For a task made from resume data, the offset it continued at once the response arrived: the
    /// resume data's offset, or 0 when it started over (DL-09). Nil before, and for other tasks.
    public var resumeOffset: Int64? { downloadState.withLock { $0.resumeOffset } }

    /// SHA-256 (64 lower-case hex digits) of the file handed over with `.downloadFinished`, set just
    /// before that event when `computesSHA256` is on (nil otherwise). Covers the whole file across
    /// resumptions.
    public var sha256: String? { downloadState.withLock { $0.sha256 } }

    /// The length of the file handed over with `.downloadFinished`, set just before that event.
    public var fileLength: Int64? { downloadState.withLock { $0.fileLength } }

    // MARK: - Resume data

    /// Cancels the task and returns what continues it later (DL-07); the partial file is kept. The
    /// task completes with a `cancelled` error, which carries the same resume data.
    ///
    /// Nil (and the partial file deleted) when the download cannot be continued: not an http(s) GET,
    /// no strong ETag or Last-Modified, a content-encoded body, no byte received yet (see
    /// `ResumeData`). Also nil when the task had already finished successfully; a task that had already
    /// failed gives its error's resume data, if any. A task made from resume data that had not started
    /// gives that resume data back.
    @discardableResult
    public func cancelProducingResumeData() async -> ResumeData? {
        downloadState.withLock { $0.producesResumeDataOnCancel = true }
        cancel()
        return await waitUntilCompleted()?.resumeData
    }

    /// `cancelProducingResumeData()` with a completion handler, called once on another thread.
    public func cancel(producingResumeData handler: @escaping @Sendable (ResumeData?) -> Void) {
        Task { handler(await cancelProducingResumeData()) }
    }

    /// Resume data for the bytes already written, while the task keeps running: persist it now and
    /// then, and a process killed mid-download (`kill -9`, a crash) can continue in a new process (DL-12).
    ///
    /// The hash covers exactly `offset` bytes; the download keeps appending after it, and resuming cuts
    /// the partial file back to `offset` once its hash checks out. The bytes were handed to the kernel
    /// (`write(2)`), so they survive the process dying, not necessarily the machine losing power.
    /// Without `computesSHA256` the first snapshot reads the file back to hash it (off the loop);
    /// later ones hash only what was written since.
    ///
    /// Before the task starts: its `resumeSource`. Nil once it completed (a failure's resume data is in
    /// its error), and whenever `cancelProducingResumeData()` would give nil.
    public func resumeDataSnapshot() async -> ResumeData? {
        let (transfer, lifecycle) = guarded.withLock { ($0.transfer, $0.lifecycle.state) }
        if let transfer {
            return await withCheckedContinuation { continuation in
                transfer.post { $0.resumeDataSnapshot { continuation.resume(returning: $0) } }
            }
        }
        return lifecycle == .completed ? nil : continuationSource
    }

    // MARK: - Background sessions (BG-06, BG-08)

    /// What the next transfer of this task continues from: the resume data it was made from, or after
    /// a background retry the resume data of the attempt that failed (nil: it starts over).
    var continuationSource: ResumeData? {
        downloadState.withLock { $0.retried ? $0.retrySource : resumeSource }
    }

    /// For a task taken up from a background store: its resume data is a snapshot, and the process
    /// that wrote it went on writing after it (DL-12). The first transfer extends it over the whole
    /// partial file (`ResumeData.coveringWholePartialFile()`), off the loop.
    var extendsResumeDataOverPartialFile: Bool {
        get { downloadState.withLock { $0.extendsResumeDataOverPartialFile } }
        set { downloadState.withLock { $0.extendsResumeDataOverPartialFile = newValue } }
    }

    override func willRetry(after error: TransferError) {
        downloadState.withLock { state in
            state.retried = true
            state.retrySource = error.resumeData
            // The failed attempt's resume data covers what it wrote already.
            state.extendsResumeDataOverPartialFile = false
        }
        if let resumeData = error.resumeData { session.backgroundBook?.resumeDataChanged(resumeData, of: self) }
    }

    // MARK: - Called by the transfer

    override var transferRole: TransferRole { .download(self) }

    var producesResumeDataOnCancel: Bool { downloadState.withLock { $0.producesResumeDataOnCancel } }

    func recordResume(offset: Int64) {
        downloadState.withLock { $0.resumeOffset = offset }
    }

    func recordFinishedFile(length: Int64, sha256: String?) {
        downloadState.withLock { state in
            state.fileLength = length
            state.sha256 = sha256
        }
    }

    /// Never started: the resume data it came from is handed back, or its partial file dropped.
    override func cancellationWithoutTransfer() -> TransferError {
        var error = super.cancellationWithoutTransfer()
        guard let source = continuationSource else { return error }
        if producesResumeDataOnCancel {
            error.resumeData = source
        } else {
            source.removePartialFile()
        }
        return error
    }
}
