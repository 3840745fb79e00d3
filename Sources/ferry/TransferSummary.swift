/// Collects the outcomes of a command's transfers and prints each failure as it happens.
///
/// When transfers fail in different ways, a transport failure (1) outranks an HTTP error (22): it is
/// the one more likely to need attention (the network, the proxy, the disk), and the per-URL lines
/// already say which failed how.
struct TransferSummary {
    private(set) var exitStatus = ExitStatus.success
    private(set) var failureCount = 0
    let console: Console
    let interruption: InterruptMonitor

    init(console: Console, interruption: InterruptMonitor) {
        self.console = console
        self.interruption = interruption
    }

    mutating func record(_ outcome: TransferOutcome, of job: TransferJob) {
        guard let line = outcome.failureLine(for: job.displayURL) else { return }
        failureCount += 1
        if outcome.exitStatus == .transportFailure || exitStatus == .success { exitStatus = outcome.exitStatus }
        // After Ctrl-C every unfinished transfer ends "cancelled"; one "interrupted" line says it all.
        if interruption.hasFired, outcome.wasCancelled { return }
        console.printLines(line)
    }

    /// A failure after the transfers, such as writing the cookie jar: a transport-class failure (1).
    mutating func recordLocalFailure() {
        failureCount += 1
        exitStatus = .transportFailure
    }
}
