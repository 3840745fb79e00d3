import ArgumentParser
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

    private struct NewTenant: Encodable {
        var name: String
        var maxRunningJobs: Int?
        var maxQueuedJobs: Int?
        enum CodingKeys: String, CodingKey {
            case name
            case maxRunningJobs = "max_running_jobs"
            case maxQueuedJobs = "max_queued_jobs"
        }
    }

    private struct Tenant: Decodable {
        var id: String
        var name: String
        var apiKey: String
        enum CodingKeys: String, CodingKey {
            case id, name
            case apiKey = "api_key"
        }
    }

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        let body = NewTenant(name: name, maxRunningJobs: maxRunningJobs, maxQueuedJobs: maxQueuedJobs)
        let reply = try await connection.send("POST", "/v1/admin/tenants", json: body)
        if gateway.json { return printJSON(reply.body) }
        let tenant = try GatewayConnection.decode(Tenant.self, from: reply.body, what: "a new tenant")
        printText("id:       \(tenant.id)\nname:     \(tenant.name)\napi key:  \(tenant.apiKey)")
        console.printLines("ferry: the API key is shown only this once: store it now")
    }
}
