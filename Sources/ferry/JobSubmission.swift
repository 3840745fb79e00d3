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

    /// How long `--wait` asks the gateway to hold its answer until the job ended (`Prefer: wait`,
    /// RFC 7240): a short job's answer is its end, with no event stream; a longer one is followed
    /// with its progress shown after that.
    static let preferredWaitSeconds = 5

    /// Submits this job. Without `wait`, prints its id (its JSON with --json); with it, asks the
    /// gateway for the finished job and, when the job outlasts that (or the gateway ignores the
    /// preference), follows it and ends as `ferry watch` does.
    func submit(wait: Bool, on connection: GatewayConnection, console: Console, command: some GatewayCommand) async throws(GatewayFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let body = try? encoder.encode(self) else { throw GatewayFailure("cannot encode the request body") }
        var request = connection.request("POST", JobPaths.jobs, json: body)
        if wait { request.headers["Prefer"] = "wait=\(Self.preferredWaitSeconds)" }
        let reply = try await connection.send(request)
        let job = try GatewayConnection.decode(GatewayJob.self, from: reply.body, what: "a job")
        guard wait else {
            if command.gateway.json { command.printJSON(reply.body) } else { command.printText(job.id) }
            return
        }
        if job.isTerminal {
            try JobWatch.report(JobWatch.Ending(job: job, body: reply.body), command: command)
            return
        }
        var display = JobProgressDisplay(console: console, isEnabled: !command.gateway.json)
        display.show(job)
        let ending = try await JobWatch(connection: connection, id: job.id).run(display: &display)
        try JobWatch.report(ending, command: command)
    }
}
