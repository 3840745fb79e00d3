import Foundation

/// The task a transfer runs, typed by its kind: what the transfer does differently for each (where
/// the body goes, which decisions the delegate is asked, whether resume data can be made).
enum TransferRole {
    /// A data task (TT-02) or an upload task (TT-05), with the body it sends.
    case data(DataTask, sending: UploadBody?)
    /// A download task (TT-04), which may send a body first (TT-09).
    case download(DownloadTask)

    var task: SessionTask {
        switch self {
        case .data(let task, _): task
        case .download(let task): task
        }
    }

    var dataTask: DataTask? {
        if case .data(let task, _) = self { return task }
        return nil
    }

    var download: DownloadTask? {
        if case .download(let task) = self { return task }
        return nil
    }

    /// The body the task sends instead of the request's own (TT-09, UP-01).
    var sentBody: UploadBody? {
        switch self {
        case .data(_, let body): body
        case .download(let task): task.uploadBody
        }
    }

    /// The resume data a download continues from (DL-08), or after a background retry the failed
    /// attempt's (BG-06).
    var resumeSource: ResumeData? { download?.continuationSource }
}
