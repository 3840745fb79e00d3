import URLLoading

/// Where a running transfer reports what happens to it: the progress meter, and with `-v` the
/// request and response heads on standard error.
struct TransferReporter: Sendable {
    let index: Int
    let console: Console
    let meter: ProgressMeter?
    let verbose: Bool

    /// True when something is shown as the transfer goes (progress, or `-v`'s heads); otherwise only
    /// its end matters, and its events can wait for it (`TaskEvents.untilCompletion`).
    var showsLiveEvents: Bool { verbose || meter != nil }

    func starting(_ request: TransferRequest) {
        guard verbose else { return }
        console.printLines(VerboseLog.request(request))
    }

    /// A redirect hop: its response head, and where the engine goes next (RD-01, RD-04).
    func redirected(from response: TransferResponse, to request: TransferRequest) {
        guard verbose else { return }
        console.printLines(VerboseLog.response(response) + "\n" + VerboseLog.redirect(to: request))
    }

    func received(_ response: TransferResponse) {
        guard verbose else { return }
        console.printLines(VerboseLog.response(response))
    }

    func progressed(_ progress: TransferProgress) {
        meter?.update(transfer: index, progress)
    }

    /// With `-v`, what libcurl itself said about a failure; the failure line keeps to Ferry's words.
    func failed(_ error: TransferError) {
        guard verbose, let detail = error.curlDetail, !detail.isEmpty else { return }
        console.printLines("* curl: \(detail)" + (error.curlCode.map { " (code \($0))" } ?? ""))
    }
}
