import ArgumentParser
import FerryClient
import Foundation

/// `ferry submit URL`: hands a transfer to the gateway, which runs it whether or not ferry waits.
struct SubmitCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Submit a download (or data) job to the gateway.",
        discussion: """
            Prints the new job's id (its JSON with --json). With --wait, asks the gateway to answer \
            with the finished job (Prefer: wait, five seconds); a job that takes longer is followed to \
            its end as `ferry watch` does (through the gateway's event stream, or by polling an older \
            ferryd). Exits 0 only if it succeeded, 3 if it failed or was cancelled.
            """)

    @Argument(help: ArgumentHelp("The URL the gateway should fetch.", valueName: "url"))
    var url: String

    @Option(name: .customLong("kind"), help: ArgumentHelp("download (the body kept as a file) or data.", valueName: "kind"))
    var kind = "download"

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("A header for the gateway to send; repeat for more.", valueName: "Name: value"))
    var headers: [String] = []

    @Flag(name: .customLong("wait"), help: "Wait for the job to end, showing its progress.")
    var wait = false

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    mutating func validate() throws {
        guard [.download, .data].contains(JobSubmission.Submission.KindPayload(rawValue: kind)) else {
            throw ValidationError("--kind must be download or data (got '\(kind)'); for uploads use `ferry upload`")
        }
        do {
            _ = try HeaderLine.parsing(headers)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        // Checked in validate(); parsed again here, where a usage error can no longer occur.
        let lines = (try? HeaderLine.parsing(headers)) ?? []
        let job = JobSubmission.Submission(
            kind: JobSubmission.Submission.KindPayload(rawValue: kind) ?? .download,
            request: .init(url: url, headers: JobSubmission.headers(lines)))
        try await JobSubmission.submit(job, wait: wait, on: connection, console: console, command: self)
    }
}
