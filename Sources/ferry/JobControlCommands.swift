import ArgumentParser
import Foundation

/// `ferry cancel|pause|resume ID`: one control request each, answered alike.
///
/// A queued or paused job changes at once (200); a running one stops when its worker notices (202,
/// `stop_requested`): the text says which, and `ferry watch` follows it to the end.
protocol JobControlCommand: GatewayCommand {
    /// The last segment of `POST /v1/jobs/{id}/<action>`.
    static var action: String { get }
    var job: JobControlArguments { get }
}

/// What every control command takes: the job's id and where the gateway is.
struct JobControlArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The job's id.", valueName: "id"))
    var id: String

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions
}

extension JobControlCommand {
    var id: String { job.id }
    var gateway: GatewayOptions { job.gateway }

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        let reply = try await connection.send(connection.request("POST", JobPaths.control(id, Self.action)))
        if gateway.json { return printJSON(reply.body) }
        let job = try GatewayConnection.decode(GatewayJob.self, from: reply.body, what: "a job")
        if let requested = job.stopRequested {
            printText("job \(job.id): \(requested) requested; it stops when its worker notices (now \(job.state))")
        } else {
            printText("job \(job.id): \(job.state)")
        }
    }
}

struct CancelCommand: JobControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel a job: it stops and will not run again.")
    static let action = "cancel"

    @OptionGroup var job: JobControlArguments
}

struct PauseCommand: JobControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a job; `ferry resume` continues it where it stopped.")
    static let action = "pause"

    @OptionGroup var job: JobControlArguments
}

struct ResumeCommand: JobControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused job.")
    static let action = "resume"

    @OptionGroup var job: JobControlArguments
}
