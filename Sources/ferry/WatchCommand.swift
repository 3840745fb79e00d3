import ArgumentParser
import Foundation

/// `ferry watch ID`: a job's progress live, until it ends.
struct WatchCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow a job until it ends, with a progress bar on a terminal.",
        discussion: """
            Shows each state the job enters and, when standard error is a terminal, a progress bar \
            with bytes, rate and ETA, fed by the gateway's event stream (reconnecting where it left \
            off if the stream drops). At the end the job's details (or, with --json, its JSON) are \
            printed on standard output. Exit status: 0 when the job succeeded, 3 when it failed or \
            was cancelled, 1 when the gateway could not be asked, 2 for usage errors.
            """)

    @Argument(help: ArgumentHelp("The job's id.", valueName: "id"))
    var id: String

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        var display = JobProgressDisplay(console: console, isEnabled: !gateway.json)
        let ending = try await JobWatch(connection: connection, id: id).run(display: &display)
        try JobWatch.report(ending, command: self)
    }
}
