import Foundation

/// Completion-handler forms (TT-07, TT-08, LC-23): the handler runs once, on some other thread
/// (LC-17), after the task completed. The session's delegate still answers decisions.
extension Session {
    public func dataTask(
        with request: TransferRequest,
        completionHandler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void
    ) throws(TransferError) -> DataTask {
        let task = try register { DataTask(session: self, identifier: $0, request: request, bodyDelivery: .collect) }
        deliverResult(of: task, to: completionHandler)
        return task
    }

    public func uploadTask(
        with request: TransferRequest, from body: UploadBody,
        completionHandler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void
    ) throws(TransferError) -> UploadTask {
        let request = Self.uploadRequest(request)
        let task = try register { UploadTask(session: self, identifier: $0, request: request, body: body, bodyDelivery: .collect) }
        deliverResult(of: task, to: completionHandler)
        return task
    }

    /// The handler gets the temporary file, valid only until it returns (DL-02), or the error.
    public func downloadTask(
        with request: TransferRequest,
        completionHandler: @escaping @Sendable (URL?, TransferResponse?, TransferError?) -> Void
    ) throws(TransferError) -> DownloadTask {
        let task = try register { DownloadTask(session: self, identifier: $0, request: request) }
        deliverDownload(of: task, to: completionHandler)
        return task
    }

    /// Sends `body` and writes the response's body to a file (TT-09, UP-11), as
    /// `downloadTask(with:uploading:)`; the handler gets the file, valid only until it returns (DL-02),
    /// or the error (never with resume data: a body was sent).
    public func downloadTask(
        with request: TransferRequest, uploading body: UploadBody,
        completionHandler: @escaping @Sendable (URL?, TransferResponse?, TransferError?) -> Void
    ) throws(TransferError) -> DownloadTask {
        let request = Self.uploadRequest(request)
        let task = try register { DownloadTask(session: self, identifier: $0, request: request, uploading: body) }
        deliverDownload(of: task, to: completionHandler)
        return task
    }

    /// Continues a download from resume data (DL-07); the handler gets the whole file, valid only
    /// until it returns (DL-02), or the error, whose `resumeData` may continue it again (DL-08).
    public func downloadTask(
        withResumeData resumeData: ResumeData,
        completionHandler: @escaping @Sendable (URL?, TransferResponse?, TransferError?) -> Void
    ) throws(TransferError) -> DownloadTask {
        try resumeData.validate()
        let task = try register {
            DownloadTask(session: self, identifier: $0, request: resumeData.originalRequest, resumingFrom: resumeData)
        }
        deliverDownload(of: task, to: completionHandler)
        return task
    }

    /// Drains a download task's events, calling `handler` once with the file or the error.
    private func deliverDownload(
        of task: DownloadTask, to handler: @escaping @Sendable (URL?, TransferResponse?, TransferError?) -> Void
    ) {
        _ = task.channel.claimConsumer()
        Task {
            while let event = await task.channel.next() {
                switch event {
                case .downloadFinished(let location): handler(location, task.response, nil)
                case .completed(let error?): handler(nil, task.response, error)
                default: continue
                }
            }
        }
    }

    /// Drains the task's events, then hands its body, response and error to `handler` once.
    private func deliverResult(
        of task: DataTask, to handler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void
    ) {
        _ = task.channel.claimConsumer()
        Task {
            while await task.channel.next() != nil {}
            switch await task.result() {
            case .success(let (data, response)): handler(data, response, nil)
            case .failure(let error): handler(nil, task.response, error)
            }
        }
    }
}
