import Foundation

/// Task factories (TT-07). Tasks start suspended: call `resume()` (LC-01). With a delegate, the
/// delegate receives each task's events; without one, read them from `task.events` or wait with
/// `value()` / `waitUntilCompleted()`.
extension Session {
    /// A data task (TT-02). With a delegate the body goes to it piece by piece; without one it is
    /// collected and returned by `value()`.
    public func dataTask(with request: TransferRequest) throws(TransferError) -> DataTask {
        let delivery: DataTask.BodyDelivery = delegate == nil ? .collect : .stream
        let task = try register { DataTask(session: self, identifier: $0, request: request, bodyDelivery: delivery) }
        startDelegateDriver(for: task)
        return task
    }

    public func dataTask(with url: URL) throws(TransferError) -> DataTask {
        try dataTask(with: TransferRequest(url: url))
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

    /// An upload task (TT-05, UP-01); the method defaults to POST when the request still says GET.
    public func uploadTask(with request: TransferRequest, from body: UploadBody) throws(TransferError) -> UploadTask {
        let delivery: DataTask.BodyDelivery = delegate == nil ? .collect : .stream
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
