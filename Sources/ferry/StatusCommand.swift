import ArgumentParser
import Foundation

/// `ferry status ID`: one job as the gateway sees it now.
struct StatusCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a job: its state, progress, response, result or error.")

    @Argument(help: ArgumentHelp("The job's id.", valueName: "id"))
    var id: String

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        let (job, body) = try await JobWatch.job(id, on: connection)
        if gateway.json { return printJSON(body) }
        printText(JobText.details(job))
    }
}
