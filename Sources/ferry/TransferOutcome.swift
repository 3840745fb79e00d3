import URLLoading

/// How one transfer ended, as far as the exit status and the failure line are concerned.
enum TransferOutcome: Sendable {
    /// A 2xx response, or a successful ftp, file or data transfer; the body is where it was asked to go.
    case succeeded
    /// The server answered with a status outside 2xx (ER-01: a response, but a failed download, ER-10).
    case httpError(statusCode: Int)
    /// No usable response: the engine's error (ER-02 step 1), or a local one such as a failed rename.
    case failed(TransferError)

    var exitStatus: ExitStatus {
        switch self {
        case .succeeded: .success
        case .httpError: .httpFailure
        case .failed: .transportFailure
        }
    }

    var wasCancelled: Bool {
        if case .failed(let error) = self { return error.code == .cancelled }
        return false
    }

    /// The one line printed on standard error for a failure; nil for success.
    func failureLine(for url: String) -> String? {
        switch self {
        case .succeeded: nil
        case .httpError(let statusCode): "ferry: \(url): HTTP \(statusCode)"
        case .failed(let error): "ferry: \(url): \(error.code.rawValue): \(error.message)"
        }
    }
}
