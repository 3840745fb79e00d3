import Foundation
import URLLoading

/// Downloads one URL into a file; shared by `-o FILE` and every file of `-i`.
///
/// A download task writes the body to an unnamed file in the destination's directory, made with the
/// permissions a new file gets here (`UnnamedFiles`; where the file system has none, a private
/// temporary file there), so the final step never copies. When the engine hands the file over with
/// `.downloadFinished`, it is linked (or renamed) into place only if the response was a success: a
/// 404's body is not the file that was asked for (DL-03, ER-10) and is left for the engine to delete.
/// A failed or cancelled transfer, even a killed `ferry`, likewise leaves nothing, and the
/// destination is never touched (DL-02, DL-05).
///
/// This is `Session.download(for:to:)` with the events exposed, for progress and `-v`.
struct FileDownload: Sendable {
    let session: Session
    let createdFileMode: mode_t

    func run(_ request: TransferRequest, to destination: URL, reporter: TransferReporter) async -> TransferOutcome {
        let task: DownloadTask
        do {
            task = try session.downloadTask(with: request)
        } catch {
            return .failed(error)
        }
        task.temporaryDirectory = destination.deletingLastPathComponent()
        task.unnamedFileMode = createdFileMode
        return await follow(task, to: destination, reporter: reporter)
    }

    /// Resumes `task` (if it is not running yet) and places its file at `destination` once it
    /// succeeded. Also for tasks a background session took up from its store, already running: their
    /// events wait for their consumer, so none is missed.
    func follow(_ task: DownloadTask, to destination: URL, reporter: TransferReporter) async -> TransferOutcome {
        let request = task.originalRequest
        // Claimed before resume(), so no event is missed.
        let events = reporter.showsLiveEvents ? task.events : task.events.untilCompletion
        reporter.starting(request)

        var response: TransferResponse?
        var placementError: TransferError?
        var completionError: TransferError?
        await withTaskCancellationHandler {
            task.resume()
            for await event in events {
                switch event {
                case .redirected(let from, let to):
                    reporter.redirected(from: from, to: to)
                case .response(let final):
                    response = final
                    reporter.received(final)
                case .progress(let progress):
                    reporter.progressed(progress)
                case .downloadFinished(let file):
                    // The engine deletes `file` when the next event is asked for: place it now or never.
                    if let response, response.isSuccess {
                        placementError = place(file, at: destination, for: request.url)
                    }
                case .completed(let error):
                    completionError = error
                case .data, .becameDownload, .resumed, .partCompleted:
                    break
                }
            }
        } onCancel: {
            task.cancel()
        }

        if let completionError { return .failed(completionError) }
        guard let response else {
            return .failed(TransferError(.badServerResponse, "the transfer ended without a response", failingURL: request.url))
        }
        if let statusCode = response.statusCode, !response.isSuccess { return .httpError(statusCode: statusCode) }
        if let placementError { return .failed(placementError) }
        return .succeeded
    }

    /// Puts the finished file at the destination, replacing any file there: links an unnamed file
    /// (made with its final permissions); gives a named one ordinary permissions (the engine makes it
    /// private while it is partial) and renames it.
    private func place(_ file: URL, at destination: URL, for url: URL) -> TransferError? {
        if UnnamedFiles.isUnnamed(file) {
            do throws(TransferError) {
                try UnnamedFiles.link(file, to: destination)
                return nil
            } catch {
                return TransferError(error.code, error.message, failingURL: url)
            }
        }
        _ = chmod(file.path, createdFileMode)
        guard rename(file.path, destination.path) == 0 else {
            return TransferError(
                .cannotWriteToFile, "cannot move the download to \(destination.path): \(String(cString: strerror(errno)))",
                failingURL: url)
        }
        return nil
    }
}
