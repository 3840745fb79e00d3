import Foundation

/// What a data task does with a response (LC-08, LC-09).
public enum ResponseDisposition: Sendable, Equatable {
    case allow
    case cancel
    /// Turn the data task into a download task: the rest of the body goes to a file (LC-09).
    case becomeDownload
}

/// What a task does about a redirect (RD-02, RD-03).
public enum RedirectDisposition: Sendable, Equatable {
    /// Follow, sending this request (the proposed one, or a substitute).
    case follow(TransferRequest)
    /// Don't follow: the redirect response itself becomes the task's response.
    case refuse
    /// Cancel the whole task.
    case cancel
}

/// The session's optional delegate (SES-09, SES-10, SES-32, LC-03).
///
/// Every method has a default, so a delegate implements only what it cares about. Decision methods may
/// take as long as they like: the transfer stays paused until they return (AU-21, LC-16). Events of one
/// task reach the delegate in order, one at a time.
public protocol SessionDelegate: AnyObject, Sendable {
    /// Whether the delegate receives the tasks' events (the notification methods below). A delegate
    /// that only makes decisions says false: each task's events then stay in `task.events` for the
    /// code that made the task, as without a delegate. Default: true.
    var receivesTaskEvents: Bool { get }

    // Decisions.
    func session(_ session: Session, task: SessionTask, willPerformRedirection response: TransferResponse,
                 newRequest: TransferRequest) async -> RedirectDisposition
    /// A custom protocol puts the task's request in canonical form (PR-13): the seeds' redirect with a
    /// nil redirect response (RD-06), asked before the hop starts. `.follow` loads the canonical
    /// request (or the one given instead), `.refuse` the request as it was, `.cancel` cancels the
    /// task. Default: follow. Kept apart from `willPerformRedirection`, whose response is never nil.
    func session(_ session: Session, task: SessionTask, willSendCanonicalRequest canonical: TransferRequest,
                 insteadOf request: TransferRequest) async -> RedirectDisposition
    func session(_ session: Session, dataTask: DataTask, didReceive response: TransferResponse) async -> ResponseDisposition
    /// Whether a download task's response is put to the delegate (the method below) before any byte
    /// of it is written. Default: false, and downloads go ahead without a question, as in the seeds.
    var decidesDownloadResponses: Bool { get }
    /// Beyond the seeds, which ask only data tasks (LC-08): a download task's response head, before
    /// its body is written; `.cancel` ends the task as cancelled, `.allow` (and `.becomeDownload`,
    /// which it already is) goes on. Asked only when `decidesDownloadResponses` says so, and only for
    /// the task's first final response (not for each part of a multipart response). Default: `.allow`.
    func session(_ session: Session, downloadTask: DownloadTask, didReceive response: TransferResponse) async -> ResponseDisposition
    /// A streamed upload body must be sent again (a 307/308 redirect); return a fresh stream, or nil to
    /// fail the task (UP-05, UP-06: never asked for Data or file bodies).
    func session(_ session: Session, taskNeedsNewBodyStream task: SessionTask) async -> UploadBody.Stream?
    /// A data or upload task's complete response may be stored in the session's cache (CA-11, CA-12):
    /// return `proposed` to store it as is, a changed copy (another `storagePolicy`, such as
    /// `allowedInMemoryOnly`, or added `userInfo`, CA-15), or nil not to store it. Never asked for
    /// download tasks or in ephemeral sessions; the default stores `proposed` (CA-14).
    func session(_ session: Session, dataTask: DataTask, willCacheResponse proposed: CachedResponse) async -> CachedResponse?
    /// A connection-level challenge (server trust, client certificate, NTLM, Negotiate) for the whole
    /// session (AU-05, TLS-04, TLS-11). Return nil, the default, to pass it to the task-level method.
    /// Never called for other methods (AU-06).
    func session(_ session: Session, didReceive challenge: AuthenticationChallenge) async -> ChallengeDisposition?
    /// Any challenge of one task: Basic, Digest, Bearer, proxy authentication, and connection-level
    /// ones the session-level method passed on (AU-06, AU-23). Default: `.performDefaultHandling`.
    func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge) async
        -> ChallengeDisposition

    // Notifications.
    func session(_ session: Session, task: SessionTask, didRedirectTo request: TransferRequest, from response: TransferResponse) async
    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) async
    func session(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) async
    func session(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                 totalBytesExpectedToSend: Int64?) async
    func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
                 totalBytesExpectedToWrite: Int64?) async
    /// A download made from resume data continues at `fileOffset` (0: it starts over) of a body of
    /// `expectedTotalBytes` (DL-09). Later `didWriteData` totals count from the offset.
    func session(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                 expectedTotalBytes: Int64?) async
    /// The file is deleted as soon as this returns: move or open it here (DL-02).
    func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) async
    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) async
    func session(_ session: Session, didBecomeInvalidWithError error: TransferError?) async
    /// A background session made with outstanding tasks of its identifier (`Session.rejoinedTasks`)
    /// has delivered every event of the last of them, `didCompleteWithError` included (BG-09): the
    /// seeds' app calls the completion handler it was woken with here. Called at most once per
    /// session, and never for a session that took up nothing.
    func sessionDidFinishEvents(forBackgroundSession session: Session) async
}

extension SessionDelegate {
    public var receivesTaskEvents: Bool { true }
    public func session(_ session: Session, task: SessionTask, willPerformRedirection response: TransferResponse,
                        newRequest: TransferRequest) async -> RedirectDisposition { .follow(newRequest) }
    public func session(_ session: Session, task: SessionTask, willSendCanonicalRequest canonical: TransferRequest,
                        insteadOf request: TransferRequest) async -> RedirectDisposition { .follow(canonical) }
    public func session(_ session: Session, dataTask: DataTask, didReceive response: TransferResponse) async -> ResponseDisposition {
        .allow
    }
    public var decidesDownloadResponses: Bool { false }
    public func session(_ session: Session, downloadTask: DownloadTask, didReceive response: TransferResponse) async
        -> ResponseDisposition { .allow }
    public func session(_ session: Session, taskNeedsNewBodyStream task: SessionTask) async -> UploadBody.Stream? { nil }
    public func session(_ session: Session, dataTask: DataTask, willCacheResponse proposed: CachedResponse) async
        -> CachedResponse? { proposed }
    public func session(_ session: Session, didReceive challenge: AuthenticationChallenge) async -> ChallengeDisposition? { nil }
    public func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge) async
        -> ChallengeDisposition { .performDefaultHandling }
    public func session(_ session: Session, task: SessionTask, didRedirectTo request: TransferRequest,
                        from response: TransferResponse) async {}
    public func session(_ session: Session, dataTask: DataTask, didReceive data: Data) async {}
    public func session(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) async {}
    public func session(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                        totalBytesExpectedToSend: Int64?) async {}
    public func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64?) async {}
    public func session(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                        expectedTotalBytes: Int64?) async {}
    public func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) async {}
    public func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) async {}
    public func session(_ session: Session, didBecomeInvalidWithError error: TransferError?) async {}
    public func sessionDidFinishEvents(forBackgroundSession session: Session) async {}
}
