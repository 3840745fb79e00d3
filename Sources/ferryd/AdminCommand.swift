import ArgumentParser

/// `ferryd admin ...`: operator tasks run against ferryd's database and configuration, next to or
/// instead of a running ferryd.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Operator tasks on ferryd's database.",
        subcommands: [RotateVaultKeyCommand.self]
    )
}
