@testable import FerryRuntime
import Testing

@Suite("Part event pace")
struct PartEventPaceTests {
    @Test("every one of the first 100 parts is recorded, however fast; later ones at most once a second (LC-10)")
    func pace() {
        var pace = PartEventPace()
        let start = ContinuousClock.now
        let first = (1...100).map { pace.records(part: $0, at: start) }
        #expect(first.allSatisfy { $0 })
        let later = [
            pace.records(part: 101, at: start + .milliseconds(999)),
            pace.records(part: 102, at: start + .seconds(1)),
            pace.records(part: 103, at: start + .milliseconds(1500)),
            pace.records(part: 140, at: start + .seconds(2)),
        ]
        #expect(later == [false, true, false, true])
    }
}
