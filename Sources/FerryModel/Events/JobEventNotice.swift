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

    /// A progress notification's payload, as `HeartbeatWriter` writes it.
    package struct ProgressPayload: Codable {
        package var progress = true
        package var tenant: UUID
        package var job: UUID
        package var bytes_done: Int64
        package var bytes_expected: Int64?
        package var rate: Int64?

        package init(tenant: UUID, job: UUID, bytes_done: Int64, bytes_expected: Int64?, rate: Int64?) {
            self.tenant = tenant
            self.job = job
            self.bytes_done = bytes_done
            self.bytes_expected = bytes_expected
            self.rate = rate
        }
    }

    /// Parses a notification's payload; nil for anything else.
    package init?(payload: String) {
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
    package var etaSeconds: Int64? {
        guard let bytesExpected, let rate, rate > 0 else { return nil }
        return (max(0, bytesExpected - bytesDone) + rate - 1) / rate
    }

    package init(tenant: UUID, job: UUID, bytesDone: Int64, bytesExpected: Int64? = nil, rate: Int64? = nil) {
        self.tenant = tenant
        self.job = job
        self.bytesDone = bytesDone
        self.bytesExpected = bytesExpected
        self.rate = rate
    }
}
