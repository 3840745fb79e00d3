import Foundation
import URLLoading

/// Copies a streamed response body to a file descriptor as it arrives, reporting progress: standard
/// output without -o, the partial file with -C -.
enum DescriptorBodyCopy {
    /// `progress` starts as the caller counts it (an offset already on disk, the expected total);
    /// `name` names the descriptor in a write failure.
    static func copy(_ body: ResponseBody, to descriptor: Int32, named name: String, progress: TransferProgress,
                     url: URL, reporter: TransferReporter) async -> TransferOutcome {
        var progress = progress
        do {
            for try await piece in body {
                if let failure = FileDescriptorOutput.writeAll(piece, to: descriptor) {
                    return .failed(TransferError(
                        .cannotWriteToFile, "cannot write to \(name): \(String(cString: strerror(failure)))", failingURL: url))
                }
                progress.bytesReceived += Int64(piece.count)
                reporter.progressed(progress)
            }
        } catch {
            return .failed(error)
        }
        return .succeeded
    }
}
