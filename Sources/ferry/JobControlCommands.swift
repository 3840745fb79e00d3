import ArgumentParser
import Foundation

/// `ferry cancel|pause|resume ID`: one control request each, answered alike.
///
/// A queued or paused job changes at once (200); a running one stops when its worker notices (202,
/// `stop_requested`): the text says which, and `ferry watch` follows it to the end.
struct JobControl {
    let action: String
    let id: String

    func perform(on connection: GatewayConnection, command: some GatewayCommand) async throws(GatewayFailure) {
        let reply = try await connection.send(connection.request("POST", JobPaths.control(id, action)))
        if command.gateway.json { return command.printJSON(reply.body) }
        let job = try GatewayConnection.decode(GatewayJob.self, from: reply.body, what: "a job")
        if let requested = job.stopRequested {
            command.printText("job \(job.id): \(requested) requested; it stops when its worker notices (now \(job.state))")
        } else {
            command.printText("job \(job.id): \(job.state)")
        }
    }
}

struct CancelCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel a job: it stops and will not run again.")

    @Argument(help: ArgumentHelp("The job's id.", valueName: "id"))
    var id: String

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        try await JobControl(action: "cancel", id: id).perform(on: connection, command: self)
    }
}

struct PauseCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a job; `ferry resume` continues it where it stopped.")

    @Argument(help: ArgumentHelp("The job's id.", valueName: "id"))
    var id: String

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        try await JobControl(action: "pause", id: id).perform(on: connection, command: self)
    }
}

struct ResumeCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused job.")

    @Argument(help: ArgumentHelp("The job's id.", valueName: "id"))
    var id: String

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        try await JobControl(action: "resume", id: id).perform(on: connection, command: self)
    }
}
