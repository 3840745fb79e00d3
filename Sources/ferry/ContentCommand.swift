import ArgumentParser
import Foundation
import URLLoading

/// `ferry content ID -o FILE`: a succeeded job's content, streamed to disk.
///
/// A download task writes the body beside FILE and it is renamed into place only once complete and
/// only for a 2xx: FILE never holds a partial body or the gateway's problem document (DL-02, DL-03,
/// DL-05). For a refusal, the problem document the engine wrote to its temporary file is read back
/// before the engine deletes it, so the failure line has the gateway's code and detail.
///
/// The engine's download task does this; the generated client would pass the body through memory
/// chunk by chunk and without the progress the bar shows, so this command does not use it.
struct ContentCommand: GatewayCommand {
    static let configuration = CommandConfiguration(
        commandName: "content",
        abstract: "Save a succeeded job's content (the body it downloaded or received) to a file.")

    @Argument(help: ArgumentHelp("The job's id.", valueName: "id"))
    var id: String

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Save the content to <file>.", valueName: "file"))
    var output: String

    @OptionGroup(title: "Gateway options")
    var gateway: GatewayOptions

    mutating func validate() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ValidationError("-o \(output): is a directory; give a file name")
        }
        let parent = URL(fileURLWithPath: output).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("-o \(output): the directory \(parent) does not exist")
        }
    }

    func perform(on connection: GatewayConnection, console: Console) async throws(GatewayFailure) {
        // Read before the first transfer: reading the umask means setting it for a moment.
        let createdFileMode = CreatedFileMode.current()
        let destination = URL(fileURLWithPath: output)
        let request = connection.request("GET", JobPaths.content(id))
        let task: DownloadTask
        do {
            task = try connection.session.downloadTask(with: request)
        } catch {
            throw GatewayFailure.unreachable(error)
        }
        // On the destination's file system, so placing the file is a rename.
        task.temporaryDirectory = destination.deletingLastPathComponent()
        let meter = console.isTerminal && !gateway.json ? ProgressMeter(style: .singleTransfer, console: console) : nil
        let events = task.events
        connection.logRequest(request)
        meter?.start()

        var response: TransferResponse?
        var refusal: Data?
        var placementError: String?
        var completionError: TransferError?
        await withTaskCancellationHandler {
            task.resume()
            for await event in events {
                switch event {
                case .response(let final): response = final
                case .progress(let progress): meter?.update(transfer: 0, progress)
                case .downloadFinished(let file):
                    // The engine deletes `file` when the next event is asked for: use it now or never.
                    if response?.isSuccess == true {
                        placementError = Self.place(file, at: destination, mode: createdFileMode)
                    } else {
                        refusal = Self.prefix(of: file, upTo: GatewayConnection.maximumErrorBody)
                    }
                case .completed(let error): completionError = error
                default: break
                }
            }
        } onCancel: {
            task.cancel()
        }
        await meter?.stop()

        if let completionError { throw GatewayFailure.unreachable(completionError) }
        guard let response else { throw GatewayFailure.unexpectedAnswer("a response") }
        connection.logResponse(response)
        try GatewayConnection.requireSuccess(response, body: refusal ?? Data())
        if let placementError { throw GatewayFailure(placementError) }
        if gateway.json { return }
        var saved = stat()
        let size = stat(output, &saved) == 0 ? ProgressLine.byteCount(Int64(saved.st_size)) : "the content"
        console.printLines("saved \(size) to \(output)")
    }

    /// Ordinary permissions (the engine keeps a partial file private), then the rename over `destination`.
    private static func place(_ file: URL, at destination: URL, mode: mode_t) -> String? {
        _ = chmod(file.path, mode)
        guard rename(file.path, destination.path) == 0 else {
            return "cannot move the content to \(destination.path): \(String(cString: strerror(errno)))"
        }
        return nil
    }

    private static func prefix(of file: URL, upTo limit: Int) -> Data? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        return try? handle.read(upToCount: limit)
    }
}
