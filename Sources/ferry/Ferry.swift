import ArgumentParser
import Foundation

/// The `ferry` command: Ferry's URL loading engine from the command line.
///
/// `get` is the only subcommand for now; later ones (submit, watch, ...) slot in beside it.
@main
struct Ferry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry",
        abstract: "Transfer URLs with Ferry's URL loading engine.",
        subcommands: [GetCommand.self]
    )

    /// Like ArgumentParser's own `main()`, except that usage errors exit with status 2 (curl's and the
    /// shell's convention) instead of 64, so scripts can tell them from failed transfers.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitStatus.usage.code)
            }
            exit(withError: error)
        }
    }
}
