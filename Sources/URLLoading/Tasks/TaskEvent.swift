import Foundation

/// Progress of one task (LC-02, LC-11, LC-12). Totals are nil when unknown (LC-19).
public struct TransferProgress: Sendable, Equatable {
    public var bytesSent: Int64 = 0
    public var totalBytesExpectedToSend: Int64?
    public var bytesReceived: Int64 = 0
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
    /// The final response's metadata, before its body (LC-08).
    case response(TransferResponse)
    /// A piece of the body, for streamed data tasks (TT-02, LC-13).
    case data(Data)
    /// Progress; consecutive progress events that nobody read yet are merged into the latest.
    case progress(TransferProgress)
    /// The data task became this download task (LC-09); the download task carries on.
    case becameDownload(DownloadTask)
    /// The download is in this temporary file, which is deleted when the next event is requested
    /// (DL-02): move or open it before asking for more.
    case downloadFinished(URL)
    /// The end: nil on success, HTTP errors included (ER-01, LC-07).
    case completed(TransferError?)
}
