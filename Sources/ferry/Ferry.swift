import ArgumentParser
import Foundation

/// The `ferry` command: Ferry's URL loading engine from the command line (`get`), and the client of
/// a ferryd gateway (everything else).
@main
struct Ferry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry",
        abstract: "Transfer URLs with Ferry's URL loading engine, here or through a ferryd gateway.",
        discussion: """
            The gateway commands find the server in --server or FERRY_URL and the API key in \
            --api-key or FERRY_API_KEY. They print text for people, or the API's JSON with --json. \
            A refused request prints "ferry: <detail> (<code>)" from the gateway's problem document \
            and exits 1.
            """,
        subcommands: [
            GetCommand.self, SubmitCommand.self, UploadCommand.self, StatusCommand.self, WatchCommand.self,
            ListCommand.self, CancelCommand.self, PauseCommand.self, ResumeCommand.self, ContentCommand.self,
            AdminCommand.self,
        ]
    )

    /// Like ArgumentParser's own `main()`, except that usage errors exit with status 2 (curl's and the
    /// shell's convention) instead of 64, so scripts can tell them from failed transfers.
    static func main() async {
        MallocTrimming.keepFreedMemoryUnlessConfigured()
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
