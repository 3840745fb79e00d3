import ArgumentParser
import FerryClient
import Foundation

/// `ferry admin ...`: what the gateway's admin key may do.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Administer the gateway (needs the admin key).",
        subcommands: [TenantsCommand.self])

    struct TenantsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tenants", abstract: "Manage tenants.", subcommands: [CreateTenantCommand.self])
    }
}

/// `ferry admin tenants create NAME`: a new tenant and its first API key, shown this once.
struct CreateTenantCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a tenant; prints its first API key, which the gateway never shows again.")

    @Argument(help: ArgumentHelp("The tenant's name.", valueName: "name"))
    var name: String

    @Option(name: .customLong("max-running-jobs"), help: ArgumentHelp("At most <n> of its jobs run at once.", valueName: "n"))
    var maxRunningJobs: Int?

    @Option(name: .customLong("max-queued-jobs"), help: ArgumentHelp("At most <n> of its jobs wait at once.", valueName: "n"))
    var maxQueuedJobs: Int?

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        let tenant = Components.Schemas.NewTenant(name: name, maxRunningJobs: maxRunningJobs, maxQueuedJobs: maxQueuedJobs)
        let (output, body) = try await connection.call(what: "a new tenant") { try await $0.createTenant(body: .json(tenant)) }
        guard case .created(let created) = output, let created = try? created.body.json else {
            throw GatewayFailure.unexpectedAnswer("a new tenant")
        }
        if gateway.json { return printJSON(body) }
        printText("id:       \(created.value1.id)\nname:     \(created.value1.name)\napi key:  \(created.value2.apiKey)")
        console.printLines("ferry: the API key is shown only this once: store it now")
    }
}
