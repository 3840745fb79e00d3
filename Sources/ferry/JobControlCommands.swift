import ArgumentParser
import FerryClient
import Foundation

/// `ferry cancel|pause|resume ID`: one control request each, answered alike.
///
/// A queued or paused job changes at once (200); a running one stops when its worker notices (202,
/// `stop_requested`): the text says which, and `ferry watch` follows it to the end.
protocol JobControlCommand: GatewayCommand {
    /// `POST /v1/jobs/{id}/<action>` through the generated client: the job as it is now.
    static func control(_ id: String, on client: Client) async throws -> GatewayJob?
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
        let id = id
        let (output, body) = try await connection.call(what: "a job") { try await Self.control(id, on: $0) }
        guard let job = output else { throw GatewayFailure.unexpectedAnswer("a job") }
        if gateway.json { return printJSON(body) }
        if let requested = job.stopRequested {
            printText("job \(job.id): \(requested.rawValue) requested; it stops when its worker notices (now \(job.state.rawValue))")
        } else {
            printText("job \(job.id): \(job.state.rawValue)")
        }
    }
}

struct CancelCommand: JobControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel a job: it stops and will not run again.")
    static func control(_ id: String, on client: Client) async throws -> GatewayJob? {
        switch try await client.cancelJob(path: .init(id: id)) {
        case .ok(let changed): try? changed.body.json
        case .accepted(let requested): try? requested.body.json
        default: nil
        }
    }

    @OptionGroup var job: JobControlArguments
}

struct PauseCommand: JobControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a job; `ferry resume` continues it where it stopped.")
    static func control(_ id: String, on client: Client) async throws -> GatewayJob? {
        switch try await client.pauseJob(path: .init(id: id)) {
        case .ok(let changed): try? changed.body.json
        case .accepted(let requested): try? requested.body.json
        default: nil
        }
    }

    @OptionGroup var job: JobControlArguments
}

struct ResumeCommand: JobControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused job.")
    static func control(_ id: String, on client: Client) async throws -> GatewayJob? {
        switch try await client.resumeJob(path: .init(id: id)) {
        case .ok(let changed): try? changed.body.json
        case .accepted(let requested): try? requested.body.json
        default: nil
        }
    }

    @OptionGroup var job: JobControlArguments
}
