import Foundation

/// A download's file is made off the loop while its request is under way. Creating a file can take
/// longer than receiving a small body (after a burst of deletes, ext4 checks its recently freed
/// inodes one by one: 0.3 to 0.6 ms a file in bench P2), and on the loop thread it held up every
/// other transfer of the loop; on the file queue it overlaps with them.
///
/// The final response's sink takes the file once it is ready. A body that arrives before it waits:
/// the transfer stops receiving, as for a slow consumer, until the file is there. A file nobody
/// took is removed.
enum DownloadFilePreparation {
    case none
    case preparing
    /// The final response's body waits for the file; `then` runs once the sink has it.
    case awaited(DownloadTask, then: (@Sendable () -> Void)?)
    case ready(DownloadFile)
    /// Not wanted any more (the task ended, or its sink made a file of its own): removed when it comes.
    case abandoned
}

extension TaskTransfer {
    /// Where download files are made: one thread, since creations in one directory take turns in
    /// the file system anyway.
    static let fileQueue = DispatchQueue(label: "ferry.download-files")

    /// Starts making the file of a download that starts from nothing (a resumed one continues its
    /// partial file) over the network. Not for file: URLs, which curl reads in one go: pausing one
    /// to wait for the file does not hold its body back.
    func prepareDownloadFile() {
        guard let download = role.download, resumption.source == nil, case .none = filePreparation,
              request.url.scheme?.lowercased() != "file" else { return }
        let directory = download.temporaryDirectory ?? FileManager.default.temporaryDirectory
        let (prefix, spares, digesting, unnamedMode) = (
            download.temporaryFilePrefix, download.spareFiles, download.computesSHA256, download.unnamedFileMode)
        let source = download.originalRequest.url
        filePreparation = .preparing
        Self.fileQueue.async { [self] in
            // A failure is met again, and reported, when the sink makes the file itself.
            let file = try? DownloadFile.create(
                in: directory, prefix: prefix, for: source, spares: spares, digesting: digesting, unnamedMode: unnamedMode)
            post { $0.downloadFilePrepared(file) }
        }
    }

    private func downloadFilePrepared(_ file: DownloadFile?) {
        switch filePreparation {
        case .preparing:
            filePreparation = file.map { .ready($0) } ?? .none
        case .awaited(let download, let then):
            filePreparation = .none
            if let file {
                sink = .file(file, for: download)
            } else {
                do {
                    sink = try ResponseSink.make(for: role, expectedLength: hopResponse?.expectedContentLength)
                } catch {
                    fail(error)
                    return
                }
            }
            then?()
        case .none, .ready, .abandoned:
            filePreparation = .none
            file?.remove()
        }
    }

    /// The sink of the final response when a file was prepared for it: the file's when it is ready;
    /// `.none` while it is being made (the body then waits for it, see `awaitsPreparedFile`); nil when
    /// there is none, or the body is one Ferry has itself (written at once): the caller makes a file.
    func takePreparedSink() -> ResponseSink? {
        switch filePreparation {
        case .ready(let file):
            filePreparation = .none
            return role.download.map { .file(file, for: $0) }
        case .preparing:
            guard let download = role.download, localBody == nil else {
                filePreparation = .abandoned
                return nil
            }
            filePreparation = .awaited(download, then: nil)
            return ResponseSink.none
        case .none, .awaited, .abandoned:
            return nil
        }
    }

    /// True while the final response's body waits for its file; `then` runs once the file is there.
    func awaitsPreparedFile(then: @autoclosure () -> @Sendable () -> Void) -> Bool {
        guard case .awaited(let download, _) = filePreparation else { return false }
        filePreparation = .awaited(download, then: then())
        return true
    }

    /// The task ends: a prepared file nobody took goes, now or when it comes.
    func abandonPreparedFile() {
        switch filePreparation {
        case .ready(let file):
            file.remove()
            filePreparation = .none
        case .preparing, .awaited:
            filePreparation = .abandoned
        case .none, .abandoned:
            break
        }
    }
}
