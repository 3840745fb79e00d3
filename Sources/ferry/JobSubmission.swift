import FerryClient
import Foundation

/// `POST /v1/jobs` as `ferry submit` and `ferry upload` send it, and what both do with the answer:
/// print the new job, or with --wait follow it to its end.
enum JobSubmission {
    typealias Submission = Components.Schemas.JobSubmission

    /// `-H` lines as the API's header object; a name given twice gets both values, comma-joined.
    static func headers(_ lines: [HeaderLine]) -> Submission.RequestPayload.HeadersPayload? {
        guard !lines.isEmpty else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            headers[line.name] = headers[line.name].map { "\($0), \(line.value)" } ?? line.value
        }
        return .init(additionalProperties: headers)
    }

    /// How long `--wait` asks the gateway to hold its answer until the job ended (`Prefer: wait`,
    /// RFC 7240): a short job's answer is its end, with no event stream; a longer one is followed
    /// with its progress shown after that.
    static let preferredWaitSeconds = 5

    /// Submits `job`. Without `wait`, prints its id (its JSON with --json); with it, asks the
    /// gateway for the finished job and, when the job outlasts that (or the gateway ignores the
    /// preference), follows it and ends as `ferry watch` does.
    static func submit(
        _ job: Submission, wait: Bool, on connection: GatewayConnection, console: Console, command: some GatewayCommand
    ) async throws(GatewayFailure) {
        let prefer = wait ? "wait=\(preferredWaitSeconds)" : nil
        let (output, body) = try await connection.call(what: "a job", preferring: prefer) {
            try await $0.submitJob(body: .json(job))
        }
        let submitted: GatewayJob
        switch output {
        case .created(let created):
            guard let job = try? created.body.json else { throw GatewayFailure.unexpectedAnswer("a job") }
            submitted = job
        case .ok(let finished):
            guard let job = try? finished.body.json else { throw GatewayFailure.unexpectedAnswer("a job") }
            submitted = job
        default:
            throw GatewayFailure.unexpectedAnswer("a job")
        }
        guard wait else {
            if command.gateway.json { command.printJSON(body) } else { command.printText(submitted.id) }
            return
        }
        if submitted.isTerminal {
            try JobWatch.report(JobWatch.Ending(job: submitted, body: body), command: command)
            return
        }
        var display = JobProgressDisplay(console: console, isEnabled: !command.gateway.json)
        display.show(submitted)
        let ending = try await JobWatch(connection: connection, id: submitted.id).run(display: &display)
        try JobWatch.report(ending, command: command)
    }
}
