import NIOCore
import NIOHTTP1

/// `/job-events/v1/jobs/{id}/events`: a ferryd job event stream (issue 4's Server-Sent Events
/// contract) that breaks once, for testing a client's reconnection with `Last-Event-ID`. A client
/// pointed at `/job-events` as its gateway reaches it at the path ferryd serves.
///
/// The job downloads 1000 bytes; its stream holds four events, ids "1" to "4": `job.running`,
/// two `job.progress` (400 and 1000 bytes) and `job.succeeded`. Without `Last-Event-ID` the route
/// sends a keep-alive comment, events 1 and 2 (event 2 with CRLF line ends, written in two pieces),
/// the first lines of event 3, and then drops the connection. With `Last-Event-ID: N` it sends the
/// events after N, then ends the stream, as ferryd does after a job's final state.
enum JobEventStreamRoute {
    static let prefix = "/job-events/v1/jobs/"

    @Sendable
    static func serve(_ request: OriginRequest, _ response: OriginResponder) async throws {
        let rest = request.pathParameter(after: prefix)
        guard rest.hasSuffix("/events") else {
            try await response.send(.notFound, text: "only the events of a job are served here")
            return
        }
        let id = String(rest.dropLast("/events".count))
        let events = [
            event("1", "job.running", job(id, state: "running", done: 0)),
            event("2", "job.progress", #"{"id":"\#(id)","bytes_done":400,"bytes_expected":1000,"rate":200,"eta_seconds":3}"#),
            event("3", "job.progress", #"{"id":"\#(id)","bytes_done":1000,"bytes_expected":1000,"rate":250,"eta_seconds":0}"#),
            event("4", "job.succeeded", job(id, state: "succeeded", done: 1000)),
        ]
        try await response.sendHead(.ok, headers: ["content-type": "text/event-stream", "cache-control": "no-store"])
        if let lastEventID = request.header("Last-Event-ID") {
            let after = Int(lastEventID) ?? 0
            for event in events.dropFirst(after) { try await response.sendBody(ByteBuffer(string: event)) }
            try await response.sendEnd()
            return
        }
        try await response.sendBody(ByteBuffer(string: ": keep-alive\n\n" + events[0]))
        let second = events[1].replacingOccurrences(of: "\n", with: "\r\n")
        let middle = second.index(second.startIndex, offsetBy: second.count / 2)
        try await response.sendBody(ByteBuffer(string: String(second[..<middle])))
        try await Task.sleep(for: .milliseconds(50))
        try await response.sendBody(ByteBuffer(string: String(second[middle...])))
        // Event 3 never completes: a client must not count its id as received.
        try await response.sendBody(ByteBuffer(string: "id: 3\nevent: job.progress\n"))
        try await Task.sleep(for: .milliseconds(50))
        await response.dropConnection()
    }

    private static func event(_ id: String, _ type: String, _ data: String) -> String {
        "id: \(id)\nevent: \(type)\ndata: \(data)\n\n"
    }

    /// A job as ferryd writes it, conforming to the API document (a client may decode it strictly).
    private static func job(_ id: String, state: String, done: Int) -> String {
        let result = state == "succeeded" ? #","result":{"size":1000,"sha256":"\#(String(repeating: "0", count: 64))"}"# : ""
        return #"{"id":"\#(id)","kind":"download","state":"\#(state)","attempt":1,"max_attempts":3,"priority":0,"#
            + #""created_at":"2026-01-01T00:00:00.000Z","updated_at":"2026-01-01T00:00:01.000Z","#
            + #""request":{"url":"http://files.invalid/a.bin","method":"GET","headers":{}},"#
            + #""progress":{"bytes_done":\#(done),"bytes_expected":1000}\#(result)}"#
    }
}
