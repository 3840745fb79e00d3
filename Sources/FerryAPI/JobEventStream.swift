import FerryModel
import FerryStore
import Foundation
import Hummingbird
import ServiceLifecycle

/// One Server-Sent Events stream (`GET /v1/jobs/{id}/events`, `GET /v1/events`): stored state events
/// from `job_events` (replayed after a Last-Event-ID, then followed live through `JobEventFeed`),
/// progress from the heartbeats' notifications, and a keep-alive comment every 15 s, which is also
/// when a stream whose client went away finds out and ends.
///
/// Each event is `id:`, `event:` and one `data:` line of JSON. State events carry the job exactly as
/// `GET /v1/jobs/{id}` shows it; progress events `{"id", "bytes_done", "bytes_expected", "rate",
/// "eta_seconds"}` with the id of the last state event sent, so resuming from it loses nothing.
struct JobEventStream: Sendable {
    let store: JobEventStore
    let feed: JobEventFeed
    let tenant: UUID
    /// Nil: every job of the tenant.
    let job: UUID?
    /// The jobs of one session only (`GET /v1/sessions/{id}/events`, BG-14): state events and
    /// `session.events_finished`, no progress.
    var session: UUID? = nil
    let lastEventID: Int64?

    static let keepAliveInterval = Duration.seconds(15)

    private enum Signal: Sendable {
        case notice(JobEventNotice)
        case keepAlive
    }

    private enum Progress {
        case open, ended
    }

    func run(_ writer: inout any ResponseBodyWriter) async throws {
        let (signals, signal) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(64))
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.keepAliveInterval)
                signal.yield(.keepAlive)
            }
        }
        defer { ticker.cancel() }
        let (tenant, job) = (self.tenant, self.job)
        // A stream never ends by itself while its job runs: ferryd shutting down ends it, so the
        // server's graceful shutdown need not wait for its clients to go.
        try await withGracefulShutdownHandler {
            try await follow(&writer, signals: signals, signal: signal, tenant: tenant, job: job)
        } onGracefulShutdown: {
            signal.yield(.notice(.closing))
        }
        try await writer.finish(nil)
    }

    private func follow(
        _ writer: inout any ResponseBodyWriter, signals: AsyncStream<Signal>, signal: AsyncStream<Signal>.Continuation, tenant: UUID, job: UUID?
    ) async throws {
        let session = self.session
        try await feed.withSubscription({ notice in
            switch notice {
            case .stored(_, tenant, let eventJob, _) where job == nil || job == eventJob: signal.yield(.notice(notice))
            case .progress(let progress) where progress.tenant == tenant && session == nil && (job == nil || job == progress.job):
                signal.yield(.notice(notice))
            case .resync, .closing: signal.yield(.notice(notice))
            default: break
            }
        }) {
            var cursor = EventCursor(after: 0, tracksGaps: job == nil)
            guard try await start(&writer, cursor: &cursor) == .open else { return }
            loop: for await next in signals {
                switch next {
                case .keepAlive:
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    if try await sendNewEvents(&writer, cursor: &cursor) == .ended { break loop }
                case .notice(.progress(let progress)):
                    try await writer.write(ByteBuffer(string: Self.frame(id: cursor.last, event: "job.progress", data: Self.progressJSON(progress))))
                case .notice(.stored), .notice(.resync):
                    if try await sendNewEvents(&writer, cursor: &cursor) == .ended { break loop }
                case .notice(.closing):
                    break loop
                }
            }
        }
    }

    /// The single-job stream's first event is the job's current state; a resumed stream replays what
    /// came after Last-Event-ID instead. A job already finished ends the stream at once.
    private func start(_ writer: inout any ResponseBodyWriter, cursor: inout EventCursor) async throws -> Progress {
        if let lastEventID {
            cursor = EventCursor(after: lastEventID, tracksGaps: job == nil)
            if try await sendNewEvents(&writer, cursor: &cursor) == .ended { return .ended }
            if let job, let current = try await store.current(job: job, tenant: tenant), current.job.state.isTerminal,
               current.latestEvent <= cursor.last {
                return .ended
            }
            return .open
        }
        guard let job else {
            cursor = EventCursor(after: try await store.latestEvent(tenant: tenant), tracksGaps: true)
            return .open
        }
        guard let current = try await store.current(job: job, tenant: tenant) else { return .ended }
        cursor = EventCursor(after: current.latestEvent, tracksGaps: false)
        try await writer.write(ByteBuffer(string: try Self.stateFrame(id: current.latestEvent, job: current.job)))
        return current.job.state.isTerminal ? .ended : .open
    }

    /// Sends the stored state events the stream has not sent yet, oldest first; `.ended` after a
    /// single-job stream's final state.
    private func sendNewEvents(_ writer: inout any ResponseBodyWriter, cursor: inout EventCursor) async throws -> Progress {
        var after = cursor.floor
        while true {
            // A page at a time, bounded in bytes: the memory a stream holds does not grow with the
            // size of the jobs it replays.
            let page = try await store.events(tenant: tenant, job: job, session: session, after: after)
            for event in page.events where cursor.accept(event.id) {
                if event.type == Self.sessionEventsFinished {
                    try await writer.write(ByteBuffer(string: try Self.sessionFrame(id: event.id, job: event.job)))
                    continue
                }
                if let part = event.part {
                    try await writer.write(ByteBuffer(string: try Self.partFrame(id: event.id, job: event.job, part: part)))
                    continue
                }
                try await writer.write(ByteBuffer(string: try Self.stateFrame(id: event.id, job: event.job)))
                if job != nil, event.job.state.isTerminal { return .ended }
            }
            guard page.hasMore, let last = page.events.last else { break }
            after = last.id
        }
        cursor.forgetOldGaps()
        return .open
    }

    static let sessionEventsFinished = "session.events_finished"

    /// `session.events_finished` (BG-09): the last of the session's jobs that ended, whose own event
    /// came just before; the client has now been told everything.
    static func sessionFrame(id: Int64, job: JobRecord) throws -> String {
        struct Finished: Encodable {
            var session: String
            var lastJob: JobView
            enum CodingKeys: String, CodingKey {
                case session
                case lastJob = "last_job"
            }
        }
        let finished = Finished(session: job.sessionID?.lowercasedString ?? "", lastJob: JobView(job))
        return frame(id: id, event: sessionEventsFinished, data: String(decoding: try GatewayRequestContext.jsonEncoder.encode(finished), as: UTF8.self))
    }

    static func stateFrame(id: Int64, job: JobRecord) throws -> String {
        frame(id: id, event: job.state.eventType, data: String(decoding: try GatewayRequestContext.jsonEncoder.encode(JobView(job)), as: UTF8.self))
    }

    /// A `job.part` event (LC-10): the job as it was then, with the part in `part`.
    static func partFrame(id: Int64, job: JobRecord, part: JobPartView) throws -> String {
        var view = JobView(job)
        view.part = part
        return frame(id: id, event: "job.part", data: String(decoding: try GatewayRequestContext.jsonEncoder.encode(view), as: UTF8.self))
    }

    static func frame(id: Int64, event: String, data: String) -> String {
        "id: \(id)\nevent: \(event)\ndata: \(data)\n\n"
    }

    static func progressJSON(_ progress: JobProgressNotice) -> String {
        let object: [String: Any] = [
            "id": progress.job.lowercasedString,
            "bytes_done": progress.bytesDone,
            "bytes_expected": progress.bytesExpected.map { $0 as Any } ?? NSNull(),
            "rate": progress.rate ?? 0,
            "eta_seconds": progress.etaSeconds.map { $0 as Any } ?? NSNull(),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
