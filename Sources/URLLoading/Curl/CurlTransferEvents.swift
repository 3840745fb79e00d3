import Foundation

/// What the curl side of a transfer reports to the driver that knows the transfer's task, on the loop
/// thread. The callbacks marked "inside curl" run inside a curl callback: returning false (or
/// `.abort`) makes that callback fail, which ends the hop with the driver's own error.
protocol CurlTransferEvents: AnyObject {
    /// Inside curl: a header line arrived; false stops the hop.
    func curlHeaderLineArrived() -> Bool
    /// Inside curl: a final response head is complete; false stops the hop.
    func curlHeadArrived(_ head: ResponseHeadParser.Head) -> Bool
    /// Inside curl: the proxy refused a tunnel's CONNECT with this head (a 407 challenge, a 403).
    func curlTunnelRefused(_ head: ResponseHeadParser.Head)
    /// Inside curl: body bytes, valid only during the call.
    func curlBodyArrived(_ bytes: UnsafeRawBufferPointer) -> CurlTransfer.Verdict
    /// Inside curl: room for request body bytes.
    func curlReadBody(into buffer: UnsafeMutableRawBufferPointer) -> CurlTransfer.ReadVerdict
    /// Inside curl: curl rewinds the request body (a retried request on a reused connection).
    func curlSeekBody(to offset: Int64) -> Bool
    /// Inside curl: request body bytes sent so far; false stops the hop.
    func curlUploadProgressed(_ uploaded: Int64) -> Bool
    /// The hop is over (ended by curl, or taken out by the driver): what curl measured of it. Comes
    /// before `curlHopEnded`.
    func curlHopMeasured(_ metrics: TransactionMetrics)
    /// curl ended the hop: `failure` is nil when it completed; `refusedByPolicy` when the connection
    /// policy refused the address, which `failure` already says.
    func curlHopEnded(failure: TransferError?, refusedByPolicy: Bool)
    /// The loop's periodic idle check, while a hop runs (LC-22).
    func curlIdleCheck(now: UInt64)
    /// The loop is stopping with the hop still running.
    func curlLoopShutDown()
}
