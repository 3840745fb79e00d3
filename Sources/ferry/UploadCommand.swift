import ArgumentParser
import FerryClient
import Foundation
import URLLoading

/// `ferry upload FILE --to URL`: streams the file to the gateway as a blob, then submits an upload
/// job that sends that blob to URL.
struct UploadCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload a file through the gateway: stored there first, then sent by an upload job.",
        discussion: """
            The file is streamed from disk to the gateway (PUT /v1/blobs, never held in memory), with \
            a progress bar on a terminal; then an upload job is submitted with that blob as its body. \
            Prints the job's id (its JSON with --json); --wait follows it as `ferry submit --wait` does.
            """)

    @Argument(help: ArgumentHelp("The file to upload.", valueName: "file"))
    var file: String

    @Option(name: .customLong("to"), help: ArgumentHelp("Where the gateway sends the file.", valueName: "url"))
    var destination: String

    @Option(
        name: [.customShort("X"), .customLong("request")],
        help: ArgumentHelp("The method the gateway sends it with (default: the gateway's, POST).", valueName: "method"))
    var method: String?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("A header for the gateway to send; repeat for more.", valueName: "Name: value"))
    var headers: [String] = []

    @Flag(name: .customLong("wait"), help: "Wait for the upload job to end, showing its progress.")
    var wait = false

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    mutating func validate() throws {
        do {
            _ = try HeaderLine.parsing(headers)
            try InputFile.requireReadableRegularFile(file, argument: file)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `PUT /v1/blobs`'s answer.
    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        let blob = try await store(on: connection, console: console)
        let lines = (try? HeaderLine.parsing(headers)) ?? []
        let job = JobSubmission.Submission(
            kind: .upload,
            request: .init(url: destination, method: method, headers: JobSubmission.headers(lines), body: .case3(.init(blob: blob.id))))
        try await JobSubmission.submit(job, wait: wait, on: connection, console: console, command: self)
    }

    /// Streams the file to the gateway (UP-03: from disk, Content-Length from the file, Content-Type
    /// from its extension) and returns the blob it became.
    /// `PUT /v1/blobs` on the engine rather than the generated client: an upload task reads the file
    /// as it sends it and reports its progress for the bar, which an `HTTPBody` handed to the client
    /// would not.
    private func store(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) -> Components.Schemas.Blob {
        let request = connection.request("PUT", "/v1/blobs")
        let task: UploadTask
        do {
            task = try connection.session.uploadTask(with: request, from: .file(URL(fileURLWithPath: file)))
        } catch {
            throw GatewayFailure.unreachable(error)
        }
        let meter = console.isTerminal && !gateway.json ? ProgressMeter(style: .singleTransfer, console: console) : nil
        let events = task.events
        connection.logRequest(request)
        meter?.start()
        await withTaskCancellationHandler {
            task.resume()
            for await event in events {
                if case .progress(let progress) = event { meter?.update(transfer: 0, progress) }
            }
        } onCancel: {
            task.cancel()
        }
        await meter?.stop()

        let body: Data
        let response: TransferResponse
        do {
            (body, response) = try await task.value()
        } catch {
            throw GatewayFailure.unreachable(error)
        }
        connection.logResponse(response)
        try GatewayConnection.requireSuccess(response, body: body)
        return try GatewayConnection.decode(Components.Schemas.Blob.self, from: body, what: "a blob")
    }
}
