import FerryClient
import Foundation

/// Follows one job to its end (succeeded, failed or cancelled), showing its states and progress:
/// `ferry watch`, `ferry submit --wait`, `ferry upload --wait`.
///
/// It listens to the job's event stream; a gateway that answers that with 404 (a ferryd from before
/// event streams) is polled instead, every 500 ms, which also reports an unknown job properly.
struct JobWatch {
    let connection: GatewayConnection
    let id: String

    static let pollInterval = Duration.milliseconds(500)

    /// The job in its final state, decoded and as the API's JSON.
    struct Ending: Sendable {
        let job: GatewayJob
        let body: Data
    }

    func run(display: inout JobProgressDisplay) async throws(GatewayFailure) -> Ending {
        var ending: Ending?
        let stream = JobEventStream(connection: connection, path: JobPaths.events(id))
        let outcome = try await stream.run { event throws(GatewayFailure) -> Bool in
            guard event.type.hasPrefix("job.") else { return false }
            let body = Data(event.data.utf8)
            if event.type == "job.progress" {
                // A malformed progress event costs one redraw, not the watch.
                if let figures = try? JSONDecoder().decode(JobProgressDisplay.Figures.self, from: body) { display.show(figures) }
                return false
            }
            let job = try GatewayConnection.decode(GatewayJob.self, from: body, what: "a job (in a \(event.type) event)")
            display.show(job)
            guard job.isTerminal else { return false }
            ending = Ending(job: job, body: body)
            return true
        }
        if case .finished = outcome, let ending {
            display.finish()
            return ending
        }
        connection.note("\(JobPaths.events(id)) answered 404; polling \(JobPaths.job(id)) every 500 ms")
        return try await poll(display: &display)
    }

    private func poll(display: inout JobProgressDisplay) async throws(GatewayFailure) -> Ending {
        while true {
            let (job, body) = try await Self.job(id, on: connection)
            display.show(job)
            if job.isTerminal {
                display.finish()
                return Ending(job: job, body: body)
            }
            try? await Task.sleep(for: Self.pollInterval)
        }
    }

    /// `GET /v1/jobs/{id}`: the job, and its JSON as received.
    static func job(_ id: String, on connection: GatewayConnection) async throws(GatewayFailure) -> (GatewayJob, Data) {
        let (output, body) = try await connection.call(what: "a job") { try await $0.getJob(path: .init(id: id)) }
        guard case .ok(let ok) = output, let job = try? ok.body.json else { throw GatewayFailure.unexpectedAnswer("a job") }
        return (job, body)
    }

    /// Prints how the job ended, on standard output (its details, or its JSON with --json), and
    /// turns a failed or cancelled job into the failure the command exits with.
    static func report(_ ending: Ending, command: some GatewayCommand) throws(GatewayFailure) {
        if command.gateway.json { command.printJSON(ending.body) } else { command.printText(JobText.details(ending.job)) }
        switch ending.job.state {
        case .succeeded: return
        case .failed:
            let reason = ending.job.error.map { ": \($0.code): \($0.message)" } ?? ""
            throw GatewayFailure("job \(ending.job.id) failed\(reason)", status: .jobUnsuccessful)
        default:
            throw GatewayFailure("job \(ending.job.id) was \(ending.job.state.rawValue)", status: .jobUnsuccessful)
        }
    }
}
