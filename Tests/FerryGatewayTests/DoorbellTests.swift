@testable import FerryModel
import Testing

/// The claim loop's and the webhook dispatcher's bell: a ring wakes one wait, and nothing
/// is left behind to wake the next one (each spurious wake was one more claim statement).
@Suite("Doorbell")
struct DoorbellTests {
    @Test("a wait ended by a ring leaves no ring behind: the next wait lasts its poll interval")
    func ringWakesOneWait() async {
        let bell = Doorbell()
        var listener = bell.makeListener()
        bell.ring()
        await listener.wait(atMost: .seconds(60))

        let clock = ContinuousClock()
        let poll = Duration.milliseconds(300)
        let started = clock.now
        await listener.wait(atMost: poll)
        #expect(clock.now - started >= poll, "the second wait returned at once: the first left a ring behind")
    }

    @Test("rings while nobody waits fold into one")
    func ringsCoalesce() async {
        let bell = Doorbell()
        var listener = bell.makeListener()
        for _ in 0..<5 { bell.ring() }
        await listener.wait(atMost: .seconds(60))

        let clock = ContinuousClock()
        let poll = Duration.milliseconds(300)
        let started = clock.now
        await listener.wait(atMost: poll)
        #expect(clock.now - started >= poll)
    }
}
