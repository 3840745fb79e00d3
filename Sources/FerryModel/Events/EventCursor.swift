/// Which stored events a stream has sent, so that each is sent once and none is skipped.
///
/// Event ids come from a sequence and are taken before their transaction commits, so across jobs
/// a higher id can become visible before a lower one (one job's events cannot: its row lock orders
/// them). A stream of several jobs therefore remembers the ids it skipped over (gaps) for a few
/// seconds and reads again from the lowest of them; a gap that never fills (another tenant's event,
/// a rolled-back insert, a stored progress event) is forgotten after `gapLifetime`.
package struct EventCursor: Sendable {
    /// The highest id sent (or the Last-Event-ID the client resumed from).
    package private(set) var last: Int64
    private let tracksGaps: Bool
    private var gaps: [Int64: ContinuousClock.Instant] = [:]

    package static let gapLifetime = Duration.seconds(3)
    /// Beyond this many open gaps, new ones are not remembered: a burst of other tenants' events
    /// must not make every read start far back.
    package static let maximumGaps = 1000

    package init(after last: Int64, tracksGaps: Bool) {
        self.last = last
        self.tracksGaps = tracksGaps
    }

    /// Read events with ids above this.
    package var floor: Int64 { gaps.keys.min().map { $0 - 1 } ?? last }

    /// Whether `id` is new to the stream; records it as sent.
    package mutating func accept(_ id: Int64, now: ContinuousClock.Instant = .now) -> Bool {
        if id > last {
            if tracksGaps, id - last > 1, gaps.count < Self.maximumGaps {
                for missing in (last + 1)..<min(id, last + 1 + Int64(Self.maximumGaps - gaps.count)) { gaps[missing] = now }
            }
            last = id
            return true
        }
        return gaps.removeValue(forKey: id) != nil
    }

    /// Forgets gaps older than `gapLifetime`.
    package mutating func forgetOldGaps(now: ContinuousClock.Instant = .now) {
        gaps = gaps.filter { now - $0.value < Self.gapLifetime }
    }
}
