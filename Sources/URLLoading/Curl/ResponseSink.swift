import Foundation

/// Where a response body goes: memory, the task's event stream, or a temporary file.
enum ResponseSink {
    case none
    case collect(CollectedBody)
    case stream
    case file(DownloadFile)

    final class CollectedBody {
        var data = Data()
    }

    /// The sink of a data task, or a new temporary file for a download task.
    static func make(for task: SessionTask, expectedLength: Int64?) throws(TransferError) -> ResponseSink {
        if let download = task as? DownloadTask {
            let directory = download.temporaryDirectory ?? FileManager.default.temporaryDirectory
            return .file(try DownloadFile.create(in: directory, for: task.originalRequest.url, spares: download.spareFiles))
        }
        guard let dataTask = task as? DataTask else { return .none }
        switch dataTask.bodyDelivery {
        case .stream: return .stream
        case .collect:
            let body = CollectedBody()
            if let expectedLength, expectedLength > 0 { body.data.reserveCapacity(Int(min(expectedLength, 64 << 20))) }
            return .collect(body)
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer, to task: SessionTask) throws(TransferError) {
        switch self {
        case .none: break
        case .collect(let body): body.data.append(contentsOf: bytes)
        case .stream: task.channel.push(.data(Data(bytes)))
        case .file(let file): try file.write(bytes)
        }
    }

    /// Hands the result over after a successful transfer.
    func finish(task: SessionTask) throws(TransferError) {
        switch self {
        case .none, .stream: break
        case .collect(let body): (task as? DataTask)?.storeCollectedBody(body.data)
        case .file(let file):
            try file.close()
            // Before the event: whoever handles the file may want its digest (no second read of it).
            (task as? DownloadTask)?.recordFinishedFile(length: file.length, sha256: file.sha256SoFar)
            task.channel.push(.downloadFinished(file.url))
        }
    }

    /// Drops whatever was received (the task failed).
    func discard() {
        if case .file(let file) = self { file.remove() }
    }

    var file: DownloadFile? {
        if case .file(let file) = self { return file }
        return nil
    }
}
