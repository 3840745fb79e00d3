/// What a migration run did.
public struct MigrationReport: Sendable, Equatable {
    /// Applied by this run, in order.
    public let applied: [Migration]
    /// How many were found already applied.
    public let previouslyApplied: Int

    public init(applied: [Migration], previouslyApplied: Int) {
        self.applied = applied
        self.previouslyApplied = previouslyApplied
    }

    public var isUpToDate: Bool { applied.isEmpty }

    /// What `ferryd migrate` prints: "applied 0001_initial" per migration, or "database is up to date".
    public var lines: [String] {
        applied.isEmpty ? ["database is up to date"] : applied.map { "applied \($0.identifier)" }
    }
}
