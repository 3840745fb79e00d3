import Foundation
import URLLoading

/// Reads a Server-Sent Events stream from ferryd through the engine's streamed body, parsing events
/// per the HTML specification's rules that the Ferry contract uses (`id:`, `event:`, one `data:`).
struct EventStreamClient {
    struct Event: Sendable, Equatable {
        var id: String?
        var event: String
        var data: String

        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any]) ?? [:] }
        var isState: Bool { event != "job.progress" }
    }

    struct Reading: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var events: [Event]
        var comments: [String]
        /// The server closed the stream (rather than the reader stopping).
        var ended: Bool
    }

    let baseURL: String
    let key: String
    let session: Session

    init(_ client: GatewayClient) {
        baseURL = client.baseURL
        key = client.key ?? ""
        session = client.session
    }

    /// Reads events until `stop` says so for the events so far, the server ends the stream, or
    /// `timeout` passes; then closes the stream.
    func read(
        _ path: String, lastEventID: String? = nil, timeout: Duration = .seconds(90), until stop: @Sendable ([Event]) -> Bool = { _ in false }
    ) async throws -> Reading {
        var request = TransferRequest(url: URL(string: baseURL + path)!, headers: ["Authorization": "Bearer \(key)", "Accept": "text/event-stream"])
        if let lastEventID { request.headers["Last-Event-ID"] = lastEventID }
        let (body, response) = try await session.bytes(for: request)
        defer { body.task.cancel() }
        let status = response.statusCode ?? 0
        guard status == 200 else {
            return Reading(status: status, headers: response.headers, events: [], comments: [], ended: true)
        }
        let deadline = Task {
            try? await Task.sleep(for: timeout)
            body.task.cancel()
        }
        defer { deadline.cancel() }
        var pending = ""
        var events: [Event] = []
        var comments: [String] = []
        var ended = false
        var chunks = body.makeAsyncIterator()
        while !stop(events) {
            let chunk: Data?
            do {
                chunk = try await chunks.next()
            } catch {
                // Cancelled: the reader's own timeout.
                if error.code == .cancelled { break }
                throw error
            }
            guard let chunk else {
                ended = true
                break
            }
            pending += String(decoding: chunk, as: UTF8.self)
            while let blank = pending.range(of: "\n\n") {
                let block = String(pending[..<blank.lowerBound])
                pending = String(pending[blank.upperBound...])
                Self.parse(block, into: &events, comments: &comments)
            }
        }
        return Reading(status: status, headers: response.headers, events: events, comments: comments, ended: ended)
    }

    /// One block between blank lines: comment lines, or an event's fields.
    static func parse(_ block: String, into events: inout [Event], comments: inout [String]) {
        var event = Event(id: nil, event: "message", data: "")
        var isEvent = false
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
            } else if let colon = line.firstIndex(of: ":") {
                var value = line[line.index(after: colon)...]
                if value.hasPrefix(" ") { value = value.dropFirst() }
                isEvent = true
                switch line[..<colon] {
                case "id": event.id = String(value)
                case "event": event.event = String(value)
                case "data": event.data += event.data.isEmpty ? String(value) : "\n" + value
                default: break
                }
            }
        }
        if isEvent { events.append(event) }
    }
}
