import Foundation

/// What `JobEventFeed` tells its subscribers: a stored event (its row is read from `job_events`), or
/// a running job's progress, which travels only in a notification.
public enum JobEventNotice: Sendable, Equatable {
    case stored(event: Int64, tenant: UUID, job: UUID, type: String)
    case progress(JobProgressNotice)
    /// The feed (re)connected: notifications may have been missed, read what is new.
    case resync
    /// ferryd is shutting down: no more notices will come.
    case closing

    /// A progress notification's payload, as `JobQueue.announce` writes it.
    struct ProgressPayload: Codable {
        var progress = true
        var tenant: UUID
        var job: UUID
        var bytes_done: Int64
        var bytes_expected: Int64?
        var rate: Int64?
    }

    /// Parses a notification's payload; nil for anything else.
    init?(payload: String) {
        guard let parsed = try? JSONDecoder().decode(ProgressPayload.self, from: Data(payload.utf8)), parsed.progress else { return nil }
        self = .progress(JobProgressNotice(
            tenant: parsed.tenant, job: parsed.job, bytesDone: parsed.bytes_done, bytesExpected: parsed.bytes_expected, rate: parsed.rate))
    }
}

/// A running job's progress as its heartbeat stored it.
public struct JobProgressNotice: Sendable, Equatable {
    public var tenant: UUID
    public var job: UUID
    public var bytesDone: Int64
    public var bytesExpected: Int64?
    /// Bytes per second.
    public var rate: Int64?

    /// Seconds left at the current rate; nil without a rate or an expected size.
    var etaSeconds: Int64? {
        guard let bytesExpected, let rate, rate > 0 else { return nil }
        return (max(0, bytesExpected - bytesDone) + rate - 1) / rate
    }
}
