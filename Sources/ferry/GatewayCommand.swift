import ArgumentParser
import Foundation

/// A `ferry` command that talks to a ferryd: how each one connects, and how its failures end it.
///
/// A command only implements `perform`; running it connects with the gateway options, prints a
/// failure as one `ferry: ...` line on standard error and exits with the failure's status (2 for
/// usage errors such as a missing server or key).
protocol GatewayCommand: AsyncParsableCommand {
    var gateway: GatewayOptions { get }

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure)
}

extension GatewayCommand {
    mutating func run() async throws {
        // A closed pipe (`ferry list | head`) must not kill the process mid-write.
        signal(SIGPIPE, SIG_IGN)
        let console = Console()
        let connection: GatewayConnection
        do {
            connection = try gateway.connect(console: console)
        } catch {
            console.printLines("ferry: \(error.description)")
            throw ExitCode(ExitStatus.usage.code)
        }
        defer { connection.session.finishTasksAndInvalidate() }
        do {
            try await perform(on: connection, console: console)
        } catch {
            console.printLines("ferry: \(error.message)")
            throw ExitCode(error.status.code)
        }
    }

    /// The API's JSON as received, for `--json`, on standard output.
    func printJSON(_ body: Data) {
        var line = body
        if line.last != UInt8(ascii: "\n") { line.append(UInt8(ascii: "\n")) }
        _ = FileDescriptorOutput.writeAll(line, to: STDOUT_FILENO)
    }

    /// Text for people, on standard output.
    func printText(_ text: String) {
        _ = FileDescriptorOutput.writeAll(text.hasSuffix("\n") ? text : text + "\n", to: STDOUT_FILENO)
    }
}
