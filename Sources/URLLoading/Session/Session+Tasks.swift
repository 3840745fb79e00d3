import Foundation

/// Task factories (TT-07). Tasks start suspended: call `resume()` (LC-01). With a delegate, the
/// delegate receives each task's events; without one, read them from `task.events` or wait with
/// `value()` / `waitUntilCompleted()`. A background session makes only http(s) download tasks and upload
/// tasks from a file; the others throw a `TransferError` that says why (BG-04, TT-03, UP-13).
extension Session {
    /// A data task (TT-02). With a delegate the body goes to it piece by piece; without one it is
    /// collected and returned by `value()`.
    public func dataTask(with request: TransferRequest) throws(TransferError) -> DataTask {
        let delivery: DataTask.BodyDelivery = delegate?.receivesTaskEvents == true ? .stream : .collect
        let task = try register { DataTask(session: self, identifier: $0, request: request, bodyDelivery: delivery) }
        startDelegateDriver(for: task)
        return task
    }

    public func dataTask(with url: URL) throws(TransferError) -> DataTask {
        try dataTask(with: TransferRequest(url: url))
    }

    /// A data task whose body arrives as `.data` events in `task.events` as it is received, with
    /// back-pressure (TT-02), even without a delegate: each part of a multipart response after that
    /// part's `.response` (LC-10). With a delegate that receives task events, the delegate has them.
    public func streamingDataTask(with request: TransferRequest) throws(TransferError) -> DataTask {
        let task = try register { DataTask(session: self, identifier: $0, request: request, bodyDelivery: .stream) }
        startDelegateDriver(for: task)
        return task
    }

    /// A download task (TT-04, DL-15): the body goes to a temporary file, handed over with
    /// `.downloadFinished` / `didFinishDownloadingTo` and deleted afterwards (DL-02).
    public func downloadTask(with request: TransferRequest) throws(TransferError) -> DownloadTask {
        let task = try register { DownloadTask(session: self, identifier: $0, request: request) }
        startDelegateDriver(for: task)
        return task
    }

    public func downloadTask(with url: URL) throws(TransferError) -> DownloadTask {
        try downloadTask(with: TransferRequest(url: url))
    }

    /// A download task that sends a body, as an upload task does, and writes the response's body to
    /// a file (TT-09, UP-11): for jobs whose response is too big for memory. The method defaults
    /// to POST when the request still says GET; progress counts bytes sent as well as received; a
    /// 307/308 sends the body again (a stream asks the delegate for a new one, UP-05). Not being a
    /// plain GET, it never produces resume data: a failure or a pause means starting over (DL-10).
    public func downloadTask(with request: TransferRequest, uploading body: UploadBody) throws(TransferError) -> DownloadTask {
        let request = Self.uploadRequest(request)
        let task = try register { DownloadTask(session: self, identifier: $0, request: request, uploading: body) }
        startDelegateDriver(for: task)
        return task
    }

    /// A download task that continues from resume data (DL-07, DL-12), in this process or a new one.
    /// It sends the original request again with `Range: bytes=<offset>-` and `If-Range` (the ETag,
    /// else the Last-Modified date), after checking the partial file against the recorded hash. Then:
    /// - 206 from the offset: the rest is appended; `.resumed(offset:, expectedTotal:)` (DL-09);
    /// - a whole body (200: the entity changed, or the server ignores ranges): written over the partial
    ///   file from byte 0, `.resumed(offset: 0, ...)`;
    /// - 416, or a 206 from elsewhere: that response is dropped and the request sent again without
    ///   `Range`, so it continues as above from byte 0;
    /// - any other status (404, 503): the task's response as usual, with its body in a new file; the
    ///   partial file is left as it was, so the same resume data can be tried again later;
    /// - a partial file that is missing, shorter than `offset` or changed: no `Range` is sent and the
    ///   download starts over in the same file.
    /// Progress counts from the offset. With `computesSHA256`, `sha256` on completion is the whole file's.
    ///
    /// Throws `invalidRequest` when the resume data is unusable (a newer version, a request that
    /// cannot be resumed, a malformed hash or path).
    public func downloadTask(withResumeData resumeData: ResumeData) throws(TransferError) -> DownloadTask {
        try resumeData.validate()
        let task = try register {
            DownloadTask(session: self, identifier: $0, request: resumeData.originalRequest, resumingFrom: resumeData)
        }
        startDelegateDriver(for: task)
        return task
    }

    /// An upload task (TT-05, UP-01); the method defaults to POST when the request still says GET.
    public func uploadTask(with request: TransferRequest, from body: UploadBody) throws(TransferError) -> UploadTask {
        let delivery: DataTask.BodyDelivery = delegate?.receivesTaskEvents == true ? .stream : .collect
        let request = Self.uploadRequest(request)
        let task = try register { UploadTask(session: self, identifier: $0, request: request, body: body, bodyDelivery: delivery) }
        startDelegateDriver(for: task)
        return task
    }

    static func uploadRequest(_ request: TransferRequest) -> TransferRequest {
        var request = request
        if request.method.uppercased() == "GET" { request.method = "POST" }
        return request
    }
}
