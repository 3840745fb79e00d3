import Synchronization
import URLLoading

/// The progress bar on standard error: one transfer's bytes, or a batch's files and bytes.
///
/// Transfers report progress as often as the engine emits it; the meter only records it. A timer
/// redraws the line every 100 ms, so the terminal sees at most ten updates a second however many
/// transfers run, and the rate has regular samples to work from.
final class ProgressMeter: Sendable {
    enum Style: Sendable {
        /// One transfer: a bar over its bytes when the total is known, with rate and ETA.
        case singleTransfer
        /// `-i`: a bar over the files, with the bytes and rate of all of them together.
        case batch(fileCount: Int)
    }

    private struct State {
        var transfers: [Int: TransferProgress] = [:]
        var finishedFiles = 0
        var failedFiles = 0
        var rate = TransferRate()
        var redraw: Task<Void, Never>?
    }

    private static let redrawInterval = Duration.milliseconds(100)

    private let style: Style
    private let console: Console
    private let startTime = ContinuousClock.now
    private let state = Mutex(State())

    init(style: Style, console: Console) {
        self.style = style
        self.console = console
    }

    /// Starts redrawing.
    func start() {
        let redraw = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.redrawInterval)
                if Task.isCancelled { break }
                draw(isFinal: false)
            }
        }
        state.withLock { $0.redraw = redraw }
    }

    func update(transfer index: Int, _ progress: TransferProgress) {
        state.withLock { $0.transfers[index] = progress }
    }

    func transferEnded(_ index: Int, succeeded: Bool) {
        state.withLock { state in
            state.finishedFiles += 1
            if !succeeded { state.failedFiles += 1 }
        }
    }

    /// Stops redrawing and leaves the final figures on screen.
    func stop() async {
        let redraw = state.withLock { state in
            defer { state.redraw = nil }
            return state.redraw
        }
        redraw?.cancel()
        await redraw?.value
        draw(isFinal: true)
        console.endStatus()
    }

    private func draw(isFinal: Bool) {
        let now = ContinuousClock.now
        let snapshot = state.withLock { state in
            var done: Int64 = 0
            var total: Int64? = 0
            for progress in state.transfers.values {
                let shown = progress.shownBytes
                done += shown.done
                total = total.flatMap { sum in shown.total.map { sum + $0 } }
            }
            state.rate.record(bytes: done, at: now)
            let elapsed = (now - startTime).seconds
            // The last line shows the average over the whole run, not the last few seconds.
            let rate = isFinal ? (elapsed > 0 ? Double(done) / elapsed : nil) : state.rate.bytesPerSecond
            switch style {
            case .singleTransfer:
                return ProgressLine.Snapshot(
                    bytesDone: done, bytesTotal: total, bytesPerSecond: rate, files: nil, isFinal: isFinal)
            case .batch(let fileCount):
                return ProgressLine.Snapshot(
                    bytesDone: done, bytesTotal: nil, bytesPerSecond: rate,
                    files: (state.finishedFiles, state.failedFiles, fileCount), isFinal: isFinal)
            }
        }
        console.showStatus(ProgressLine.render(snapshot, width: console.width()))
    }
}

extension TransferProgress {
    /// The bytes worth showing: sent while an upload body is still going out, received otherwise.
    var shownBytes: (done: Int64, total: Int64?) {
        if bytesReceived == 0, let totalToSend = totalBytesExpectedToSend, bytesSent < totalToSend {
            return (bytesSent, totalToSend)
        }
        return (bytesReceived, totalBytesExpectedToReceive)
    }
}
