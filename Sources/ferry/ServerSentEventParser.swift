import Foundation

/// One event of a `text/event-stream`.
struct ServerSentEvent: Sendable, Equatable {
    /// The stream's last event id when this event was dispatched: what `Last-Event-ID` resumes after.
    var id: String?
    /// The `event:` field; "message" when the event had none.
    var type: String
    /// The `data:` lines, joined with line feeds.
    var data: String
}

/// Turns the bytes of a `text/event-stream` into events, as the HTML standard's parsing rules say:
/// lines end with CRLF, LF or CR (also split across pieces); a blank line dispatches the event;
/// lines starting with ":" are comments (the keep-alives); `id` persists until changed and counts
/// only once its event is complete; `retry` gives the reconnection delay.
struct ServerSentEventParser {
    /// The reconnection delay the server asked for with `retry:`, if it did.
    private(set) var retry: Duration?
    /// The id of the last event dispatched (or blank line seen): what a reconnection resumes after.
    /// An `id:` line of an event that never completed does not count.
    private(set) var lastEventID: String?
    /// The `id:` seen in the event being read, which becomes `lastEventID` once it completes.
    private var idBuffer: String?

    private var line: [UInt8] = []
    /// A CR ended the previous line; a LF right after it belongs to the same line ending.
    private var afterCarriageReturn = false
    private var eventType = ""
    private var dataLines: [String] = []
    private var hasData = false

    init(lastEventID: String? = nil, retry: Duration? = nil) {
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
        self.retry = retry
    }

    /// Feeds the next piece of the stream; returns the events it completed.
    mutating func feed(_ bytes: Data) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\r"):
                afterCarriageReturn = true
                if let event = endLine() { events.append(event) }
            case UInt8(ascii: "\n"):
                if let event = endLine() { events.append(event) }
            default:
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else { return dispatch() }
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "event": eventType = String(value)
        case "data":
            dataLines.append(String(value))
            hasData = true
        case "id" where !value.contains("\0"): idBuffer = String(value)
        case "retry":
            if !value.isEmpty, value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber), let milliseconds = Int(value) {
                retry = .milliseconds(milliseconds)
            }
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            eventType = ""
            dataLines = []
            hasData = false
        }
        lastEventID = idBuffer
        guard hasData else { return nil }
        return ServerSentEvent(id: lastEventID, type: eventType.isEmpty ? "message" : eventType, data: dataLines.joined(separator: "\n"))
    }
}
