import Foundation

/// The async/await API, the main way to use a session (SES-31). Each call makes a task, runs it and
/// returns its result; cancelling the calling Swift task cancels the transfer. The session's delegate,
/// if any, still answers decisions and hears redirects, progress and completion.
extension Session {
    /// Fetches into memory (TT-02). HTTP error statuses are responses, not errors (ER-01).
    public func data(for request: TransferRequest) async throws(TransferError) -> (Data, TransferResponse) {
        let task = try register { DataTask(session: self, identifier: $0, request: request, bodyDelivery: .collect) }
        await run(task) { _ in }
        return try await task.value()
    }

    public func data(from url: URL) async throws(TransferError) -> (Data, TransferResponse) {
        try await data(for: TransferRequest(url: url))
    }

    /// Sends a body and returns the response's body (TT-05, UP-02, UP-03, UP-04).
    public func upload(for request: TransferRequest, from body: UploadBody) async throws(TransferError) -> (Data, TransferResponse) {
        let request = Self.uploadRequest(request)
        let task = try register { UploadTask(session: self, identifier: $0, request: request, body: body, bodyDelivery: .collect) }
        await run(task) { _ in }
        return try await task.value()
    }

    /// Downloads to a temporary file and calls `handle` with it; the file is deleted when `handle`
    /// returns, so move or read it there (DL-02). Not called when the transfer fails.
    public func download<T>(
        for request: TransferRequest, handle: (URL, TransferResponse) throws -> T
    ) async throws -> T {
        let task = try register { DownloadTask(session: self, identifier: $0, request: request) }
        var outcome: Result<T, any Error>?
        await run(task) { event in
            if case .downloadFinished(let location) = event, let response = task.response {
                outcome = Result { try handle(location, response) }
            }
        }
        if let error = task.error { throw error }
        guard let outcome else {
            throw TransferError(.badServerResponse, "the download ended without a file", failingURL: request.url)
        }
        return try outcome.get()
    }

    /// Downloads to `destination`, replacing any file there, and returns the response. The file is
    /// written next to `destination` and renamed into place, so `destination` never holds a partial
    /// body. The body is placed whatever the status: check `statusCode` before trusting it (DL-03,
    /// ER-10). A failure leaves nothing behind unless its error carries resume data (DL-08): then the
    /// partial file stays next to `destination` for `download(resumeFrom:to:)`, or for the resume
    /// data's `removePartialFile()`.
    public func download(for request: TransferRequest, to destination: URL) async throws(TransferError) -> TransferResponse {
        let task = try register { DownloadTask(session: self, identifier: $0, request: request) }
        return try await place(task, at: destination)
    }

    /// Sends `body` (as `upload(for:from:)` does, POST unless the request names a method) and puts the
    /// response's body at `destination`, as `download(for:to:)` does: for responses too big for memory.
    /// Never leaves resume data: a failure means sending the body again.
    public func download(
        for request: TransferRequest, uploading body: UploadBody, to destination: URL
    ) async throws(TransferError) -> TransferResponse {
        let request = Self.uploadRequest(request)
        let task = try register { DownloadTask(session: self, identifier: $0, request: request, uploading: body) }
        return try await place(task, at: destination)
    }

    /// Continues a download (DL-07, DL-12) and puts the whole body at `destination`, as
    /// `download(for:to:)` does. The partial file should be on `destination`'s file system (it is when
    /// it came from `download(for:to:)` into the same directory), so the final step is a rename.
    /// `destination` gets the body of whatever response ended the download, a 404's included: check
    /// `statusCode`. After such an unrelated response the partial file is left for the same resume data.
    public func download(resumeFrom resumeData: ResumeData, to destination: URL) async throws(TransferError) -> TransferResponse {
        try resumeData.validate()
        let task = try register {
            DownloadTask(session: self, identifier: $0, request: resumeData.originalRequest, resumingFrom: resumeData)
        }
        return try await place(task, at: destination)
    }

    /// Runs a download task and renames its file to `destination`.
    private func place(_ task: DownloadTask, at destination: URL) async throws(TransferError) -> TransferResponse {
        let url = task.originalRequest.url
        task.temporaryDirectory = destination.deletingLastPathComponent()
        var moveError: TransferError?
        await run(task) { event in
            guard case .downloadFinished(let location) = event else { return }
            // The temporary file is private (0600); the result gets what a newly created file would.
            chmod(location.path, FileModes.newFile)
            if rename(location.path, destination.path) != 0 {
                moveError = TransferError(
                    .cannotWriteToFile, "cannot move the download to \(destination.path): \(String(cString: strerror(errno)))",
                    failingURL: url)
            }
        }
        if let error = task.error ?? moveError { throw error }
        guard let response = task.response else {
            throw TransferError(.badServerResponse, "the download ended without a response", failingURL: url)
        }
        return response
    }

    /// Streams the body as it arrives (TT-02, LC-05, LC-06): returns once the response's headers are
    /// in; the body follows through the returned sequence. While the reader is behind, the transfer
    /// pauses (at most about 1 MiB waits in memory). Dropping the sequence early cancels the transfer.
    public func bytes(for request: TransferRequest) async throws(TransferError) -> (ResponseBody, TransferResponse) {
        try await stream(try register { DataTask(session: self, identifier: $0, request: request, bodyDelivery: .stream) })
    }

    /// Sends `body` (UP-01, UP-04) and streams the response's body as `bytes(for:)` does.
    public func bytes(for request: TransferRequest, uploading body: UploadBody) async throws(TransferError)
        -> (ResponseBody, TransferResponse)
    {
        let request = Self.uploadRequest(request)
        return try await stream(try register {
            UploadTask(session: self, identifier: $0, request: request, body: body, bodyDelivery: .stream)
        })
    }

    private func stream(_ task: DataTask) async throws(TransferError) -> (ResponseBody, TransferResponse) {
        let request = task.originalRequest
        _ = task.channel.claimConsumer()
        let body = ResponseBody(task: task)
        task.resume()
        let response: TransferResponse? = await withTaskCancellationHandler {
            await body.waitForResponse()
        } onCancel: {
            task.cancel()
        }
        guard let response else {
            throw task.error ?? TransferError(.badServerResponse, "the transfer ended without a response", failingURL: request.url)
        }
        return (body, response)
    }

    /// Resumes `task` and consumes its events until it completes, passing each to `onEvent` and the
    /// notifications to the delegate.
    private func run(_ task: SessionTask, onEvent: (TaskEvent) -> Void) async {
        _ = task.channel.claimConsumer()
        var delivery = delegate.map { DelegateDelivery(session: self, delegate: $0, task: task) }
        await withTaskCancellationHandler {
            task.resume()
            while let event = await task.channel.next() {
                onEvent(event)
                switch event {
                case .data, .downloadFinished: break
                default: await delivery?.deliver(event)
                }
            }
        } onCancel: {
            task.cancel()
        }
    }
}
