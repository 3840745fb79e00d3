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

    static func make(for task: SessionTask, expectedLength: Int64?) throws(TransferError) -> ResponseSink {
        if let download = task as? DownloadTask {
            let directory = download.temporaryDirectory ?? FileManager.default.temporaryDirectory
            return .file(try DownloadFile.create(in: directory, for: task.originalRequest.url))
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
            task.channel.push(.downloadFinished(file.url))
        }
    }

    /// Drops whatever was received (the task failed).
    func discard() {
        if case .file(let file) = self { file.remove() }
    }
}

/// A download's temporary file, written from the loop thread with plain `write(2)`.
final class DownloadFile {
    let url: URL
    private var descriptor: Int32

    private init(url: URL, descriptor: Int32) {
        self.url = url
        self.descriptor = descriptor
    }

    static func create(in directory: URL, for source: URL) throws(TransferError) -> DownloadFile {
        let url = directory.appendingPathComponent("ferry-download-\(UUID().uuidString).tmp")
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw TransferError(.cannotWriteToFile, "cannot create \(url.path): \(String(cString: strerror(errno)))",
                                failingURL: source)
        }
        return DownloadFile(url: url, descriptor: descriptor)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw TransferError(.cannotWriteToFile, "writing \(url.path) failed: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    func close() throws(TransferError) {
        guard descriptor >= 0 else { return }
        let result = Foundation.close(descriptor)
        descriptor = -1
        if result != 0 {
            throw TransferError(.cannotWriteToFile, "closing \(url.path) failed: \(String(cString: strerror(errno)))")
        }
    }

    func remove() {
        try? close()
        unlink(url.path)
    }
}
