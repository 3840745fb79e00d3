import URLLoading

/// Runs the transfers of an `-i` list, at most `parallel` at a time, in list order.
///
/// A task group with a fixed number of children in flight: each finished transfer makes room for the
/// next. The session allows as many connections per host as there are children, so the engine does
/// not queue them a second time (SES-18). After Ctrl-C no new transfer starts.
struct BatchRun: Sendable {
    let runner: TransferRunner
    let parallel: Int
    let console: Console
    let meter: ProgressMeter?
    let verbose: Bool
    let interruption: InterruptMonitor

    func run(_ jobs: [TransferJob], into summary: inout TransferSummary) async {
        let work = { @Sendable (job: TransferJob) async -> (TransferJob, TransferOutcome) in
            let reporter = TransferReporter(index: job.index, console: console, meter: meter, verbose: verbose)
            return (job, await runner.run(job, reporter: reporter))
        }
        await withTaskGroup(of: (TransferJob, TransferOutcome).self) { group in
            var pending = jobs.makeIterator()
            for _ in 0..<parallel {
                guard let job = pending.next() else { break }
                group.addTask { await work(job) }
            }
            while let (job, outcome) = await group.next() {
                meter?.transferEnded(job.index, succeeded: outcome.exitStatus == .success)
                summary.record(outcome, of: job)
                if !interruption.hasFired, let next = pending.next() {
                    group.addTask { await work(next) }
                }
            }
        }
    }
}
