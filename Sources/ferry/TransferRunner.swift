import Foundation
import URLLoading

/// Runs one `TransferJob` the way its body and destination call for. The single place where that
/// choice is made, for one URL and for every URL of a batch alike.
struct TransferRunner: Sendable {
    let session: Session
    let createdFileMode: mode_t
    /// `-C -`: continue partial output files instead of replacing them.
    var continuesPartialFiles = false

    func run(_ job: TransferJob, reporter: TransferReporter) async -> TransferOutcome {
        let outcome: TransferOutcome
        if let uploadFile = job.uploadFile {
            outcome = await UploadTransfer(session: session)
                .run(job.request, from: uploadFile, to: job.destination, reporter: reporter)
        } else {
            switch job.destination {
            case .standardOutput:
                outcome = await StandardOutputTransfer(session: session).run(job.request, reporter: reporter)
            case .parts(let directory):
                outcome = await PartsDownload(session: session, createdFileMode: createdFileMode)
                    .run(job.request, into: directory, reporter: reporter)
            case .file(let destination) where continuesPartialFiles:
                outcome = await ContinuedFileDownload(session: session, createdFileMode: createdFileMode)
                    .run(job.request, to: destination, reporter: reporter)
            case .file(let destination):
                outcome = await FileDownload(session: session, createdFileMode: createdFileMode)
                    .run(job.request, to: destination, reporter: reporter)
            }
        }
        if case .failed(let error) = outcome { reporter.failed(error) }
        return outcome
    }
}
