import Foundation
import URLLoading

/// `--parts DIR`: each part of a `multipart/x-mixed-replace` response into its own file in `DIR`,
/// `part-0001`, `part-0002`, ... in the order they came (LC-10); any other response is one part.
///
/// A streamed data task hands over each part's `.response` and then that part's bytes, which are
/// written as they arrive (memory stays flat, the transfer waits for the disk). Names carry no
/// extension: a part's type is in its headers (`-v` shows them), and the number keeps them in order.
/// Existing files of the same names are replaced. A part cut short by a failed transfer is removed;
/// the parts before it stay. An error status writes nothing, as without `--parts`.
struct PartsDownload: Sendable {
    let session: Session
    let createdFileMode: mode_t

    /// The file name of part `index` (from 1).
    static func fileName(of index: Int) -> String {
        let digits = String(index)
        return "part-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    func run(_ request: TransferRequest, into directory: URL, reporter: TransferReporter) async -> TransferOutcome {
        let task: DataTask
        do {
            task = try session.streamingDataTask(with: request)
        } catch {
            return .failed(error)
        }
        let events = task.events
        reporter.starting(request)

        var output = PartOutput(directory: directory, mode: createdFileMode, url: request.url)
        var status: Int?
        var completionError: TransferError?
        await withTaskCancellationHandler {
            task.resume()
            for await event in events {
                switch event {
                case .redirected(let from, let to):
                    reporter.redirected(from: from, to: to)
                case .response(let response):
                    reporter.received(response)
                    status = response.statusCode
                    if response.isSuccess, !output.startNext() { task.cancel() }
                case .data(let data):
                    if !output.write(data) { task.cancel() }
                case .progress(let progress):
                    reporter.progressed(progress)
                case .completed(let error):
                    completionError = error
                case .partCompleted, .becameDownload, .resumed, .downloadFinished:
                    break
                }
            }
        } onCancel: {
            task.cancel()
        }
        let failure = output.failure ?? completionError
        output.close(keepingLast: failure == nil)

        if let failure { return .failed(failure) }
        if let status, !(200..<300).contains(status) { return .httpError(statusCode: status) }
        if output.written == 0 {
            return .failed(TransferError(.badServerResponse, "the transfer ended without a response", failingURL: request.url))
        }
        return .succeeded
    }

    /// The part file being written, and how many were opened.
    private struct PartOutput {
        let directory: URL
        let mode: mode_t
        let url: URL
        var written = 0
        var descriptor: Int32 = -1
        var failure: TransferError?

        init(directory: URL, mode: mode_t, url: URL) {
            self.directory = directory
            self.mode = mode
            self.url = url
        }

        var currentPath: String { directory.appendingPathComponent(PartsDownload.fileName(of: written)).path }

        /// Closes the part before (complete: its next part began) and opens the next file.
        mutating func startNext() -> Bool {
            close(keepingLast: true)
            written += 1
            descriptor = open(currentPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
            guard descriptor >= 0 else { return fail("cannot create \(currentPath)") }
            return true
        }

        mutating func write(_ data: Data) -> Bool {
            guard descriptor >= 0 else { return true }
            let complete = data.withUnsafeBytes { bytes -> Bool in
                var offset = 0
                while offset < bytes.count {
                    let count = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += count
                }
                return true
            }
            if complete { return true }
            return fail("cannot write \(currentPath)")
        }

        /// Closes the open part; removes it unless `keepingLast` (a transfer that failed within it).
        mutating func close(keepingLast: Bool) {
            guard descriptor >= 0 else { return }
            if Foundation.close(descriptor) != 0, failure == nil { _ = fail("cannot write \(currentPath)") }
            descriptor = -1
            if !keepingLast || failure != nil { unlink(currentPath) }
        }

        private mutating func fail(_ what: String) -> Bool {
            if failure == nil {
                failure = TransferError(.cannotWriteToFile, "\(what): \(String(cString: strerror(errno)))", failingURL: url)
            }
            return false
        }
    }
}
