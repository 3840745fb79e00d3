import Foundation
import URLLoading

/// `ferry get --background <name>`: downloads that survive the command, like aria2's session file.
///
/// The download runs in the engine's background session `<name>` (BG-12, BG-24), whose store keeps
/// it (by default under `$XDG_STATE_HOME/ferry/background/<name>`) until it completed: its request,
/// where the file goes (the task's description), and resume data written every second. Stopped by
/// Ctrl-C, killed, or cut off by a reboot, the command leaves it there; running
/// `ferry get --background <name>` again (with or without a new URL) takes up every outstanding
/// download of the session, continuing each from its partial file when the server still has the same
/// entity (BG-08, BG-13), and finishes them. Network failures are retried on their own, with
/// backoff, until --max-time (default 7 days) (BG-06).
///
/// The partial file is written beside the output file, as without --background, so the last step is
/// a rename. Credentials (-u, -H Authorization) are not written to the store: give them again when
/// taking up a download that needs them.
struct BackgroundGet {
    let session: Session
    let createdFileMode: mode_t
    let console: Console
    let meter: ProgressMeter?
    let verbose: Bool

    /// Starts `job` (if any) in the session, follows it and every download the session took up, and
    /// records each outcome.
    func run(_ job: TransferJob?, into summary: inout TransferSummary) async {
        for problem in session.skippedBackgroundEntries {
            console.printLines("ferry: warning: \(problem)")
        }
        var followed: [(TransferJob, DownloadTask)] = []
        for task in session.rejoinedTasks {
            guard let download = task as? DownloadTask else {
                // ferry makes no background uploads; another program's task is not ours to finish.
                continue
            }
            let url = download.originalRequest.url.absoluteString
            guard let path = download.taskDescription, path.hasPrefix("/") else {
                download.cancel()
                summary.record(.failed(TransferError(.invalidRequest, "the background download has no output file recorded",
                                                     failingURL: download.originalRequest.url)),
                               of: TransferJob(index: followed.count, displayURL: url, request: download.originalRequest,
                                               uploadFile: nil, destination: .standardOutput))
                continue
            }
            console.printLines("ferry: continuing \(url) -> \(path)")
            let destination = URL(fileURLWithPath: path)
            followed.append((TransferJob(index: followed.count, displayURL: url, request: download.originalRequest,
                                         uploadFile: nil, destination: .file(destination)), download))
        }
        if let job, case .file(let destination) = job.destination {
            do {
                let download = try session.downloadTask(with: job.request)
                download.temporaryDirectory = destination.deletingLastPathComponent()
                // Where the file goes, kept with the task for the command that takes it up.
                download.taskDescription = destination.path
                followed.append((TransferJob(index: followed.count, displayURL: job.displayURL, request: job.request,
                                             uploadFile: nil, destination: job.destination), download))
            } catch {
                summary.record(.failed(error), of: job)
            }
        }
        if job == nil, followed.isEmpty, session.skippedBackgroundEntries.isEmpty {
            console.printLines("ferry: background session \(session.configuration.identifier ?? "") has no outstanding downloads")
        }

        let downloads = FileDownload(session: session, createdFileMode: createdFileMode)
        let outcomes = await withTaskGroup(of: (Int, TransferOutcome).self) { group in
            for (index, (job, task)) in followed.enumerated() {
                guard case .file(let destination) = job.destination else { continue }
                let reporter = TransferReporter(index: job.index, console: console, meter: meter, verbose: verbose)
                group.addTask {
                    let outcome = await downloads.follow(task, to: destination, reporter: reporter)
                    if case .failed(let error) = outcome { reporter.failed(error) }
                    meter?.transferEnded(job.index, succeeded: outcome.exitStatus == .success)
                    return (index, outcome)
                }
            }
            var outcomes: [Int: TransferOutcome] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
        for (index, (job, _)) in followed.enumerated() {
            if let outcome = outcomes[index] { summary.record(outcome, of: job) }
        }
    }
}
