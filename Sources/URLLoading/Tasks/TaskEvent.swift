import Foundation

/// Progress of one task (LC-02, LC-11, LC-12). Totals are nil when unknown (LC-19).
public struct TransferProgress: Sendable, Equatable {
    public var bytesSent: Int64 = 0
    public var totalBytesExpectedToSend: Int64?
    /// Body bytes received. For a download continued from resume data it counts from the offset it
    /// resumed at, so it is the length of the file so far (DL-09).
    public var bytesReceived: Int64 = 0
    /// The whole body's length when known: for a resumed download, the entity's total, not the rest.
    public var totalBytesExpectedToReceive: Int64?

    public init() {}

    /// Received fraction when the total is known, else sent fraction when that is known.
    public var fractionCompleted: Double? {
        if let total = totalBytesExpectedToReceive, total > 0 { return Double(bytesReceived) / Double(total) }
        if let total = totalBytesExpectedToSend, total > 0, bytesReceived == 0 {
            return Double(bytesSent) / Double(total)
        }
        return nil
    }
}

/// What happens to a task, in order (LC-14). A task's events end with exactly one `.completed`.
public enum TaskEvent: Sendable {
    /// A redirect was followed (RD-01).
    case redirected(from: TransferResponse, to: TransferRequest)
    /// The final response's metadata, before its body (LC-08). A `multipart/x-mixed-replace`
    /// response comes as one `.response` per part instead (its part's headers, the outer status and
    /// URL), each followed by that part's body: the body and progress start over with each (LC-10,
    /// LG-05).
    case response(TransferResponse)
    /// Part `index` (from 1) of a `multipart/x-mixed-replace` response ended: complete, with `length`
    /// body bytes; `response` is the one its `.response` carried (LC-10).
    case partCompleted(index: Int, response: TransferResponse, length: Int64)
    /// A piece of the body, for streamed data tasks (TT-02, LC-13).
    case data(Data)
    /// Progress; consecutive progress events that nobody read yet are merged into the latest.
    case progress(TransferProgress)
    /// A download made from resume data continues at `offset` of a body of `expectedTotal` bytes
    /// (DL-09). Comes right after `.response`. Offset 0 means it starts over: the server sent the
    /// whole body (the entity changed, or it ignores ranges), or the partial file was missing,
    /// shorter than recorded or changed.
    case resumed(offset: Int64, expectedTotal: Int64?)
    /// The data task became this download task (LC-09); the download task carries on.
    case becameDownload(DownloadTask)
    /// The download is in this temporary file, which is deleted when the next event is requested
    /// (DL-02): move or open it before asking for more.
    case downloadFinished(URL)
    /// The end: nil on success, HTTP errors included (ER-01, LC-07).
    case completed(TransferError?)
}
