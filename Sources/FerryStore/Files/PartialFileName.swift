import Foundation
import FerryModel

/// How a job attempt's temporary files are named in its tenant's directory:
/// `partial-<job>-<attempt>-<UUID>.tmp`, so that a sweep can tell whose a file is without asking
/// the process that wrote it (which may be gone, or stopped and no longer the job's worker).
public struct PartialFileName: Sendable, Equatable {
    public var job: UUID
    public var attempt: Int

    public init(job: UUID, attempt: Int) {
        self.job = job
        self.attempt = attempt
    }

    /// What the engine puts before the UUID of each file it makes for this attempt.
    public var prefix: String { "partial-\(job.uuidString.lowercased())-\(attempt)-" }

    /// The job and attempt a file name was made for; nil for any other name.
    public init?(fileName: String) {
        guard fileName.hasPrefix("partial-"), fileName.hasSuffix(".tmp") else { return nil }
        // partial- + 36 (job) + - + attempt + - + 36 (UUID) + .tmp
        let middle = fileName.dropFirst("partial-".count).dropLast(".tmp".count)
        guard middle.count > 36 + 1 + 1 + 36, let job = UUID(idText: String(middle.prefix(36))) else { return nil }
        let rest = middle.dropFirst(37).split(separator: "-", maxSplits: 1)
        guard rest.count == 2, let attempt = Int(rest[0]), attempt >= 0 else { return nil }
        self.job = job
        self.attempt = attempt
    }

    /// Temporary files in general: these and the engine's own default names.
    static func isTemporary(_ fileName: String) -> Bool {
        fileName.hasSuffix(".tmp") && (fileName.hasPrefix("partial-") || fileName.hasPrefix("ferry-download-"))
    }
}
