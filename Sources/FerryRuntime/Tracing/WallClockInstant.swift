import Foundation
import Tracing

/// A point in wall-clock time for a span that starts or ends at a moment measured earlier (an
/// engine hop's phases, known once the hop is over).
struct WallClockInstant: TracerInstant {
    let nanosecondsSinceEpoch: UInt64

    init(_ date: Date, plus offset: Duration = .zero) {
        let (seconds, attoseconds) = offset.components
        let nanoseconds = date.timeIntervalSince1970 * 1e9 + Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        nanosecondsSinceEpoch = UInt64(max(0, nanoseconds.rounded()))
    }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
}
