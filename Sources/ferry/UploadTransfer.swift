import Foundation
import URLLoading

/// Sends a file as the request body (`--upload-file`) and delivers the response body.
///
/// The engine streams the file from disk (UP-03: Content-Length from the file, Content-Type from its
/// extension unless set). An upload task keeps the response body in memory, which suits the short
/// answers uploads get; it is then written out whole, to a file atomically, so a failure leaves none.
struct UploadTransfer: Sendable {
    let session: Session

    func run(
        _ request: TransferRequest, from file: URL, to destination: TransferJob.Destination, reporter: TransferReporter
    ) async -> TransferOutcome {
        let task: UploadTask
        do {
            task = try session.uploadTask(with: request, from: .file(file))
        } catch {
            return .failed(error)
        }
        let events = task.events
        reporter.starting(request)
        await withTaskCancellationHandler {
            task.resume()
            for await event in events {
                switch event {
                case .redirected(let from, let to): reporter.redirected(from: from, to: to)
                case .response(let response): reporter.received(response)
                case .progress(let progress): reporter.progressed(progress)
                case .data, .becameDownload, .resumed, .downloadFinished, .partCompleted, .completed: break
                }
            }
        } onCancel: {
            task.cancel()
        }

        let body: Data
        let response: TransferResponse
        do {
            (body, response) = try await task.value()
        } catch {
            return .failed(error)
        }
        if let statusCode = response.statusCode, !response.isSuccess { return .httpError(statusCode: statusCode) }
        if let error = deliver(body, to: destination, for: request.url) { return .failed(error) }
        return .succeeded
    }

    private func deliver(_ body: Data, to destination: TransferJob.Destination, for url: URL) -> TransferError? {
        switch destination {
        case .standardOutput:
            guard let failure = FileDescriptorOutput.writeAll(body, to: STDOUT_FILENO) else { return nil }
            return TransferError(
                .cannotWriteToFile, "cannot write to standard output: \(String(cString: strerror(failure)))", failingURL: url)
        case .parts(let directory):
            // Refused by `ferry get`'s validation; were it not, the body would be the one part.
            return deliver(body, to: .file(directory.appendingPathComponent(PartsDownload.fileName(of: 1))), for: url)
        case .file(let path):
            do {
                // .atomic: written beside the destination and renamed over it.
                try body.write(to: path, options: .atomic)
                return nil
            } catch {
                return TransferError(
                    .cannotWriteToFile, "cannot write \(path.path): \(InputFile.reason(error))", failingURL: url)
            }
        }
    }
}
