import Foundation
import Testing
import URLLoadingTestSupport

/// `ferry watch`'s side of the event stream contract, against a loopback server that plays a
/// ferryd job stream and breaks it once (`JobEventStreamRoute`); the live ferryd test is in
/// `GatewayClientCommandTests`.
@Suite("ferry watch: event stream reconnection", .timeLimit(.minutes(2)))
struct WatchReconnectionTests {
    // A stream that drops mid-event is resumed with Last-Event-ID naming the last complete event,
    // the replayed events are shown, and the watch ends with the job's final state.
    @Test func reconnectsWithTheLastEventID() async throws {
        try await CLIFixture.withOrigin { origin in
            let id = UUID().uuidString.lowercased()
            let terminal = try PseudoTerminal()
            let watch = try await FerryProcess.run(
                ["watch", id, "--server", origin.url("/job-events"), "-v"], terminal: terminal,
                environment: ["FERRY_API_KEY": "ferry_test_key"])
            CLIFixture.expectStatus(watch, 0)
            #expect(GatewayCLIFixture.field("state", in: GatewayCLIFixture.text(watch)) == "succeeded", "\(watch.summary)")

            let streams = origin.requests.filter { $0.path == "/job-events/v1/jobs/\(id)/events" }
            #expect(streams.count == 2, "\(streams)")
            #expect(streams.first?.headers.contains { $0.name.lowercased() == "last-event-id" } == false)
            // Event 3's id line arrived, but the event never completed: the resumption is after 2.
            #expect(streams.last?.headers.first { $0.name.lowercased() == "last-event-id" }?.value == "2")
            #expect(streams.allSatisfy { $0.headers.contains { $0.name.lowercased() == "accept" && $0.value == "text/event-stream" } })

            let screen = watch.standardError
            #expect(screen.contains("reconnecting"), "\(screen.debugDescription)")
            #expect(screen.contains("job \(id): running"))
            #expect(screen.contains("job \(id): succeeded"))
            // The progress events drew the bar: 400 of 1000 bytes with the gateway's ETA, then all of it.
            #expect(screen.contains(" 40%  400 B / 1000 B  200 B/s  ETA 0:03"), "\(screen.debugDescription)")
            #expect(screen.contains("100%  1000 B / 1000 B"))
            #expect(!screen.contains("ferry_test_key"))
        }
    }
}
