import Foundation

/// Where a response body goes: memory, the task's event stream, or a temporary file.
enum ResponseSink {
    case none
    case collect(CollectedBody, for: DataTask)
    case stream(TaskEventChannel)
    case file(DownloadFile, for: DownloadTask)

    final class CollectedBody {
        var data = Data()
    }

    /// The sink of a data task, or a new temporary file for a download task.
    static func make(for role: TransferRole, expectedLength: Int64?) throws(TransferError) -> ResponseSink {
        switch role {
        case .download(let download):
            let directory = download.temporaryDirectory ?? FileManager.default.temporaryDirectory
            let file = try DownloadFile.create(
                in: directory, prefix: download.temporaryFilePrefix, for: download.originalRequest.url, spares: download.spareFiles,
                digesting: download.computesSHA256, unnamedMode: download.unnamedFileMode)
            return .file(file, for: download)
        case .data(let dataTask, _):
            switch dataTask.bodyDelivery {
            case .stream: return .stream(dataTask.channel)
            case .collect:
                let body = CollectedBody()
                if let expectedLength, expectedLength > 0 { body.data.reserveCapacity(Int(min(expectedLength, 64 << 20))) }
                return .collect(body, for: dataTask)
            }
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        switch self {
        case .none: break
        case .collect(let body, _): body.data.append(contentsOf: bytes)
        case .stream(let channel): channel.push(.data(Data(bytes)))
        case .file(let file, _): try file.write(bytes)
        }
    }

    /// Hands the result over after a successful transfer; `sha256` is the file's digest when the
    /// download asked for it.
    func finish(sha256: String?) throws(TransferError) {
        switch self {
        case .none, .stream: break
        case .collect(let body, let task): task.storeCollectedBody(body.data)
        case .file(let file, let download):
            try file.finishWriting()
            // Before the event: whoever handles the file may want its digest.
            download.recordFinishedFile(length: file.length, sha256: sha256)
            // Open until the consumer moves on: its name is the descriptor's.
            if file.isUnnamed { download.channel.holdOpen(file) }
            download.channel.push(.downloadFinished(file.url))
        }
    }

    /// Drops what the sink holds, for the next part of a multipart response (LG-05): a collected
    /// body is emptied, a file cut to zero and written again from its start (so a download's file
    /// holds the latest part, and never more than one part's bytes); a stream has nothing to drop,
    /// its consumer sees the part's `.response` before the part's data.
    func startOver() throws(TransferError) {
        switch self {
        case .none, .stream: break
        case .collect(let body, _): body.data.removeAll(keepingCapacity: true)
        case .file(let file, _): try file.truncateToZero()
        }
    }

    var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    var file: DownloadFile? {
        if case .file(let file, _) = self { return file }
        return nil
    }
}
