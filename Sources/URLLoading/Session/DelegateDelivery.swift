import Foundation

/// Turns one task's events into delegate calls, in order (LC-11..LC-14, DL-01, DL-09).
struct DelegateDelivery {
    let session: Session
    let delegate: any SessionDelegate
    let task: SessionTask
    private var lastProgress = TransferProgress()

    init(session: Session, delegate: any SessionDelegate, task: SessionTask) {
        self.session = session
        self.delegate = delegate
        self.task = task
    }

    mutating func deliver(_ event: TaskEvent) async {
        switch event {
        case .redirected(let response, let request):
            await delegate.session(session, task: task, didRedirectTo: request, from: response)
        case .response:
            // Data tasks were asked for a disposition when the response arrived. Each part of a
            // multipart response starts its progress over (LG-05).
            lastProgress.bytesReceived = 0
        case .partCompleted:
            break
        case .data(let data):
            if let dataTask = task as? DataTask { await delegate.session(session, dataTask: dataTask, didReceive: data) }
        case .progress(let progress):
            await deliverProgress(progress)
        case .resumed(let offset, let expectedTotal):
            // Progress counts from the offset; what was already on disk is not news (DL-09).
            lastProgress.bytesReceived = offset
            if let download = task as? DownloadTask {
                await delegate.session(session, downloadTask: download, didResumeAtOffset: offset, expectedTotalBytes: expectedTotal)
            }
        case .becameDownload(let download):
            if let dataTask = task as? DataTask { await delegate.session(session, dataTask: dataTask, didBecome: download) }
        case .downloadFinished(let location):
            if let download = task as? DownloadTask {
                await delegate.session(session, downloadTask: download, didFinishDownloadingTo: location)
            }
        case .completed(let error):
            await deliverProgress(task.progress)
            await delegate.session(session, task: task, didCompleteWithError: error)
        }
    }

    private mutating func deliverProgress(_ progress: TransferProgress) async {
        defer { lastProgress = progress }
        if progress.bytesSent > lastProgress.bytesSent {
            await delegate.session(
                session, task: task, didSendBodyData: progress.bytesSent - lastProgress.bytesSent,
                totalBytesSent: progress.bytesSent, totalBytesExpectedToSend: progress.totalBytesExpectedToSend)
        }
        if let download = task as? DownloadTask, progress.bytesReceived > lastProgress.bytesReceived {
            await delegate.session(
                session, downloadTask: download, didWriteData: progress.bytesReceived - lastProgress.bytesReceived,
                totalBytesWritten: progress.bytesReceived, totalBytesExpectedToWrite: progress.totalBytesExpectedToReceive)
        }
    }
}
