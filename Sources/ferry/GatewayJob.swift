import FerryClient

/// A job as the gateway's API returns it: the type generated from the OpenAPI document.
typealias GatewayJob = Components.Schemas.Job

extension GatewayJob {
    /// The states no job leaves.
    static let terminalStates: Set<Components.Schemas.JobState> = [.succeeded, .failed, .cancelled]

    var isTerminal: Bool { Self.terminalStates.contains(state) }
}
