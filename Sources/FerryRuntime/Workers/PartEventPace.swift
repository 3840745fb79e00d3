/// Which parts of a multipart/x-mixed-replace response get a `job.part` event (LC-10): each of the
/// first `everyPartUpTo`, then at most one every `interval`. An endless stream (a camera sending 30
/// frames a second) would otherwise write an event, and a webhook to every subscriber, per frame for
/// as long as the job runs. The content and `result.parts` still count every part; an event skipped
/// shows as a gap in the `part.index` of the events.
struct PartEventPace {
    static let everyPartUpTo = 100
    static let interval = Duration.seconds(1)

    private var lastRecorded: ContinuousClock.Instant?

    /// Whether part `index` (from 1) ending at `now` gets its event; if so, it counts as the last one.
    mutating func records(part index: Int, at now: ContinuousClock.Instant = .now) -> Bool {
        if index > Self.everyPartUpTo, let lastRecorded, now - lastRecorded < Self.interval { return false }
        lastRecorded = now
        return true
    }
}
