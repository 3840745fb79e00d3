import FerryClient
import Foundation

/// What a command waiting for a job shows on standard error: a line for each state the job enters,
/// and on a terminal the progress bar (bytes, rate, ETA) as the gateway reports them.
///
/// The figures are the gateway's (its worker measures the transfer), so the bar shows them as
/// they come instead of working out a rate of its own as `ferry get`'s meter does. Updates arrive
/// a few times a second at most; each one is drawn.
struct JobProgressDisplay {
    /// The `job.progress` event's data.
    struct Figures: Decodable, Sendable {
        var bytesDone: Int64
        var bytesExpected: Int64?
        var rate: Double?
        var etaSeconds: Double?
        enum CodingKeys: String, CodingKey {
            case bytesDone = "bytes_done"
            case bytesExpected = "bytes_expected"
            case rate
            case etaSeconds = "eta_seconds"
        }
    }

    let console: Console
    /// Off with --json: standard error is then left to failures.
    let isEnabled: Bool
    private var lastState: Components.Schemas.JobState?
    private var figures: Figures?

    init(console: Console, isEnabled: Bool) {
        self.console = console
        self.isEnabled = isEnabled
    }

    private var drawsBar: Bool { isEnabled && console.isTerminal }

    /// A job as a state event or a poll returned it.
    mutating func show(_ job: GatewayJob) {
        guard isEnabled else { return }
        if job.state != lastState {
            lastState = job.state
            console.printLines("job \(job.id): \(job.state.rawValue)")
        }
        show(
            Figures(
                bytesDone: Int64(job.progress.bytesDone), bytesExpected: job.progress.bytesExpected.map(Int64.init),
                rate: job.progress.rate.map(Double.init)))
    }

    mutating func show(_ figures: Figures) {
        self.figures = figures
        draw(isFinal: false)
    }

    /// Leaves the bar's last state on screen, without an ETA.
    func finish() {
        guard drawsBar, figures != nil else { return }
        draw(isFinal: true)
        console.endStatus()
    }

    private func draw(isFinal: Bool) {
        guard drawsBar, let figures else { return }
        let snapshot = ProgressLine.Snapshot(
            bytesDone: figures.bytesDone, bytesTotal: figures.bytesExpected, bytesPerSecond: figures.rate, files: nil,
            isFinal: isFinal, secondsLeft: figures.etaSeconds)
        console.showStatus(ProgressLine.render(snapshot, width: console.width()))
    }
}
