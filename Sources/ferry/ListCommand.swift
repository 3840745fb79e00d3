import ArgumentParser
import FerryClient
import Foundation

/// `ferry list`: the caller's jobs, newest first, every page of them.
struct ListCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your jobs, newest first.",
        discussion: """
            The gateway answers in pages; ferry follows each page's next_cursor to the end, so the \
            list is complete. With --json, the jobs of every page are printed as one \
            {"jobs": [...]} document.
            """)

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp(
            "Only jobs in <state>: queued, running, paused, waiting_for_decision, retrying, succeeded, failed or cancelled.",
            valueName: "state"))
    var state: String?

    @Option(
        name: .customLong("page-size"),
        help: ArgumentHelp("Ask for <n> jobs a request (1 to 500; default: the gateway's).", valueName: "n"))
    var pageSize: Int?

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    mutating func validate() throws {
        if let pageSize, !(1...500).contains(pageSize) { throw ValidationError("--page-size must be 1 to 500 (got \(pageSize))") }
        if let state, Components.Schemas.JobState(rawValue: state) == nil {
            let states = Components.Schemas.JobState.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--state must be one of \(states) (got '\(state)')")
        }
    }

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        var jobs: [GatewayJob] = []
        // The API's own objects, kept as received for --json.
        var rawJobs: [Any] = []
        var cursor: String?
        // Checked in validate().
        let state = state.flatMap(Components.Schemas.JobState.init(rawValue:))
        repeat {
            let query = Operations.ListJobs.Input.Query(state: state, limit: pageSize, cursor: cursor)
            let (output, body) = try await connection.call(what: "a page of jobs") { try await $0.listJobs(query: query) }
            guard case .ok(let ok) = output, let page = try? ok.body.json else { throw GatewayFailure.unexpectedAnswer("a page of jobs") }
            jobs += page.jobs
            if gateway.json, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
                rawJobs += object["jobs"] as? [Any] ?? []
            }
            cursor = page.nextCursor
        } while cursor != nil

        if gateway.json {
            let document: [String: Any] = ["jobs": rawJobs, "next_cursor": NSNull()]
            guard let body = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
            else { throw GatewayFailure("cannot encode the list of jobs") }
            return printJSON(body)
        }
        printText(JobText.table(jobs))
    }
}
