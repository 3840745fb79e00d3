import Foundation

/// The body of `POST /v1/jobs` as `ferry submit` and `ferry upload` write it, and what both do with
/// the answer: print the new job, or with --wait follow it to its end.
struct JobSubmission: Encodable, Sendable {
    var kind: String
    var request: Request

    struct Request: Encodable, Sendable {
        var url: String
        var method: String?
        var headers: [String: String]?
        var body: Body?
    }

    /// A body streamed to the gateway before (`PUT /v1/blobs`).
    struct Body: Encodable, Sendable {
        var blob: String
    }

    /// `-H` lines as the API's header object; a name given twice gets both values, comma-joined.
    static func headers(_ lines: [HeaderLine]) -> [String: String]? {
        guard !lines.isEmpty else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            headers[line.name] = headers[line.name].map { "\($0), \(line.value)" } ?? line.value
        }
        return headers
    }

    /// Submits this job. Without `wait`, prints its id (its JSON with --json); with it, follows the
    /// job and ends as `ferry watch` does.
    func submit(wait: Bool, on connection: GatewayConnection, console: Console, command: some GatewayCommand) async throws(GatewayFailure) {
        let reply = try await connection.send("POST", JobPaths.jobs, json: self)
        let job = try GatewayConnection.decode(GatewayJob.self, from: reply.body, what: "a job")
        guard wait else {
            if command.gateway.json { command.printJSON(reply.body) } else { command.printText(job.id) }
            return
        }
        var display = JobProgressDisplay(console: console, isEnabled: !command.gateway.json)
        display.show(job)
        let ending = try await JobWatch(connection: connection, id: job.id).run(display: &display)
        try JobWatch.report(ending, command: command)
    }
}
