/// The recent transfer rate, over a sliding window of samples.
///
/// A window (rather than the average since the start) lets the rate and ETA follow a transfer that
/// speeds up or stalls; three seconds keeps the figure from jittering at every 100 ms redraw.
struct TransferRate {
    private struct Sample {
        let time: ContinuousClock.Instant
        let bytes: Int64
    }

    private static let window = Duration.seconds(3)
    /// Below this span of samples the rate is noise; none is shown.
    private static let minimumSpan = Duration.milliseconds(200)

    private var samples: [Sample] = []

    mutating func record(bytes: Int64, at time: ContinuousClock.Instant) {
        samples.append(Sample(time: time, bytes: bytes))
        // Keep one sample older than the window, so the window is always fully covered.
        while samples.count > 2, time - samples[1].time > Self.window { samples.removeFirst() }
    }

    /// Bytes per second over the window, or nil until enough time has passed.
    var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        let span = last.time - first.time
        guard span >= Self.minimumSpan else { return nil }
        return Double(last.bytes - first.bytes) / span.seconds
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
