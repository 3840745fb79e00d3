import Foundation
@testable import URLLoading

/// A delegate that records what it hears and answers decisions with the closures it was given.
final class RecordingDelegate: SessionDelegate {
    let log = Locked<[String]>([])
    let received = Locked<Data>(Data())
    let finishedDownloads = Locked<[Data]>([])
    let sentTotals = Locked<[Int64]>([])
    let writtenTotals = Locked<[Int64]>([])
    let converted = Locked<DownloadTask?>(nil)

    let redirect: @Sendable (TransferResponse, TransferRequest) async -> RedirectDisposition
    let disposition: @Sendable (TransferResponse) async -> ResponseDisposition
    let newStream: @Sendable () -> UploadBody.Stream?

    init(
        redirect: @escaping @Sendable (TransferResponse, TransferRequest) async -> RedirectDisposition = { .follow($1) },
        disposition: @escaping @Sendable (TransferResponse) async -> ResponseDisposition = { _ in .allow },
        newStream: @escaping @Sendable () -> UploadBody.Stream? = { nil }
    ) {
        self.redirect = redirect
        self.disposition = disposition
        self.newStream = newStream
    }

    var entries: [String] { log.withLock { $0 } }

    private func record(_ entry: String) { log.withLock { $0.append(entry) } }

    func session(_ session: Session, task: SessionTask, willPerformRedirection response: TransferResponse,
                 newRequest: TransferRequest) async -> RedirectDisposition {
        record("willRedirect \(response.statusCode ?? 0) \(newRequest.method) \(newRequest.url.path)")
        return await redirect(response, newRequest)
    }

    func session(_ session: Session, dataTask: DataTask, didReceive response: TransferResponse) async -> ResponseDisposition {
        record("response \(response.statusCode ?? 0)")
        return await disposition(response)
    }

    func session(_ session: Session, taskNeedsNewBodyStream task: SessionTask) async -> UploadBody.Stream? {
        record("needNewBodyStream")
        return newStream()
    }

    func session(_ session: Session, task: SessionTask, didRedirectTo request: TransferRequest, from response: TransferResponse) async {
        record("redirected \(request.url.path)")
    }

    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) async {
        received.withLock { $0.append(data) }
    }

    func session(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) async {
        converted.withLock { $0 = downloadTask }
        record("becameDownload")
    }

    func session(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                 totalBytesExpectedToSend: Int64?) async {
        sentTotals.withLock { $0.append(totalBytesSent) }
    }

    func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
                 totalBytesExpectedToWrite: Int64?) async {
        writtenTotals.withLock { $0.append(totalBytesWritten) }
    }

    func session(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                 expectedTotalBytes: Int64?) async {
        record("resumed \(fileOffset) of \(expectedTotalBytes.map(String.init) ?? "?")")
    }

    func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) async {
        // Keep the bytes before logging: tests wait for the log entry, then look at the bytes.
        if let data = try? Data(contentsOf: location) { finishedDownloads.withLock { $0.append(data) } }
        record("finishedDownloading")
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) async {
        record("complete \(task.taskIdentifier) \(error?.code.rawValue ?? "ok")")
    }

    func session(_ session: Session, didBecomeInvalidWithError error: TransferError?) async {
        record("invalid")
    }
}
