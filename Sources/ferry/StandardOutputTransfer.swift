import Foundation
import URLLoading

/// Fetches one URL and streams its body to standard output as it arrives, like curl without `-o`.
///
/// Streaming (rather than a download task) lets `ferry get URL | tool` start at once and keeps memory
/// flat; the engine pauses the transfer while the pipe is full. An error status is reported and its
/// body not written (the default `--fail` behaviour); dropping the body cancels the transfer.
struct StandardOutputTransfer: Sendable {
    let session: Session

    func run(_ request: TransferRequest, reporter: TransferReporter) async -> TransferOutcome {
        reporter.starting(request)
        let body: ResponseBody
        let response: TransferResponse
        do {
            (body, response) = try await session.bytes(for: request)
        } catch {
            return .failed(error)
        }
        reporter.received(response)
        if let statusCode = response.statusCode, !response.isSuccess { return .httpError(statusCode: statusCode) }

        var progress = TransferProgress()
        // A length announced for an encoded body does not count the decoded bytes we see.
        progress.totalBytesExpectedToReceive =
            response.headers.contains("Content-Encoding") ? nil : response.expectedContentLength
        return await DescriptorBodyCopy.copy(
            body, to: STDOUT_FILENO, named: "standard output", progress: progress, url: request.url, reporter: reporter)
    }
}
