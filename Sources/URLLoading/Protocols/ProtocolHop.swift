import Foundation

/// One hop a custom protocol loads: its instance, and the reports of its client waiting to be taken
/// by the transfer, in order. Loop-confined: reports are posted to the loop, and the transfer takes
/// them only while nothing holds the hop's body (a decision, a suspended task, a slow reader).
final class ProtocolHop: @unchecked Sendable {
    private(set) var instance: (any TransferProtocol)?
    private weak var transfer: TaskTransfer?
    private var waiting: [ProtocolReport] = []
    private var isStopped = false
    /// The space of the challenge the delegate is being asked about, until it is answered or withdrawn.
    var pendingChallenge: ProtectionSpace?
    /// The transfer is taking this hop's reports now.
    var isBeingTaken = false
    private let url: URL
    private let startedAt = Date()
    private var responseStartedAt: Date?
    private var bodyBytes: Int64 = 0

    init(url: URL, transfer: TaskTransfer) {
        self.url = url
        self.transfer = transfer
    }

    /// Makes the instance of `loader` for `request`, its client reporting on `loop` and holding what
    /// the cache found for it, and starts it.
    func start(_ loader: any TransferProtocol.Type, request: TransferRequest, cachedResponse: CachedResponse?, loop: CurlLoop) {
        let client = TransferProtocolClient(cachedResponse: cachedResponse) { [weak self] report in
            guard let hop = self else {
                report.drop()
                return
            }
            loop.execute { hop.arrived(report) }
        }
        let instance = loader.init(request: request, client: client)
        self.instance = instance
        instance.startLoading()
    }

    private func arrived(_ report: ProtocolReport) {
        guard !isStopped else {
            report.drop()
            return
        }
        waiting.append(report)
        transfer?.takeProtocolReports()
    }

    /// The oldest report not taken yet.
    func takeNext() -> ProtocolReport? {
        waiting.isEmpty ? nil : waiting.removeFirst()
    }

    /// A report that could not be taken yet goes back to the front.
    func putBack(_ report: ProtocolReport) {
        waiting.insert(report, at: 0)
    }

    func responseArrived() {
        if responseStartedAt == nil { responseStartedAt = Date() }
    }

    func bodyTaken(_ count: Int) {
        bodyBytes += Int64(count)
    }

    /// Ends the hop: the protocol is stopped (once), and reports still waiting are dropped.
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        let dropped = waiting
        waiting = []
        dropped.forEach { $0.drop() }
        instance?.stopLoading()
    }

    /// What the hop cost, for the task's metrics: no connection of the engine's, so only its times,
    /// status and body size.
    func metrics(statusCode: Int?, outcome: TransactionMetrics.Outcome) -> TransactionMetrics {
        let now = Date()
        let offset = { (date: Date) in Duration.milliseconds(Int64((date.timeIntervalSince(self.startedAt) * 1000).rounded())) }
        return TransactionMetrics(
            request: url, statusCode: statusCode, outcome: outcome, fetchStart: startedAt,
            responseStart: responseStartedAt.map(offset), responseEnd: offset(now), isReusedConnection: false,
            networkProtocolName: url.scheme?.lowercased(), responseBodyBytes: bodyBytes)
    }
}
