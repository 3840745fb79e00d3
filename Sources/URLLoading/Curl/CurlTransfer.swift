import Foundation
internal import CCurl

/// The curl side of one transfer: the easy handle of its current hop (each hop of a transfer, TT-06,
/// gets a new one), curl's callbacks, and the pause mask curl holds.
///
/// Loop-confined: every method runs on `loop`'s thread. It knows nothing of tasks: whatever curl
/// reports goes to `events`, the driver that knows the task, which says what to do with it.
final class CurlTransfer: @unchecked Sendable, CurlTransferDriver {
    /// What the write callback does with body bytes.
    enum Verdict { case accepted, pause, abort }

    /// What the read callback hands curl.
    enum ReadVerdict {
        case bytes(Int)
        case end
        /// Nothing ready yet: sending pauses until the driver resumes it.
        case pause
        case abort
    }

    /// What one hop sends, and how.
    struct Hop {
        var request: TransferRequest
        var body: RequestBodyReader?
        var remainingMilliseconds: Int
        /// Sent to the proxy only, with the CONNECT of a tunnel.
        var proxyHeaderLines: [String]
        /// The TLS settings of this hop's server; nil when the request's own options are all it needs.
        var tls: HopTLSSettings?
        /// Send `Accept-Encoding` and decode the body (the task's choice, not only the session's).
        var acceptsCompressedContent: Bool
    }

    let loop: CurlLoop
    private let configuration: SessionConfiguration
    /// Not retained: the driver owns this object, a running hop retains the driver (`hopOwner`), and
    /// every other call comes from the driver itself. No reference counting on the callbacks' path.
    private unowned(unsafe) let events: any CurlTransferEvents
    private var hopOwner: AnyObject?
    private var hop: EasyHandle?
    private var hopTLS: TLSHandshakeHook?
    /// `announcedContentLength` and `remoteFileTime` of the last non-HTTP hop, once curl ended it.
    private var endedHopFacts: (announcedLength: Int64?, fileTime: Int64?) = (nil, nil)
    /// The URL the current (or last) hop requested: the failing URL of its errors.
    private var hopURL = URL(fileURLWithPath: "/")
    /// When the current hop was handed to curl: where its `TransactionMetrics` times count from.
    private var hopStartedAt = Date()
    private var parser = ResponseHeadParser()
    private var isHTTP = false
    /// The hop goes through a CONNECT tunnel (https through an http proxy).
    private var tunnels = false
    private var pauseMask = 0
    /// The address the connection policy refused on this hop, if any: the reason a connect failed.
    private var refusedAddress: String?
    /// True while a curl callback of this transfer runs: a failure must then go through the callback.
    fileprivate(set) var insideCallback = false

    init(loop: CurlLoop, configuration: SessionConfiguration, events: any CurlTransferEvents) {
        self.loop = loop
        self.configuration = configuration
        self.events = events
    }

    // MARK: - Hops

    /// Sets up an easy handle for `setup` and hands it to the loop; curl starts it on the loop's next turn.
    func startHop(_ setup: Hop) throws(TransferError) {
        let url = setup.request.url
        hopURL = url
        parser = ResponseHeadParser()
        let scheme = url.scheme?.lowercased()
        isHTTP = scheme == "http" || scheme == "https"
        tunnels = CurlRequestOptions.tunnels(url, configuration: configuration)
        refusedAddress = nil
        pauseMask = 0
        endedHopFacts = (nil, nil)
        guard var easy = EasyHandle.make() else {
            setup.tls?.hook?.hopEnded()
            throw TransferError(.unknown, "could not create a curl handle", failingURL: url)
        }
        do {
            try CurlRequestOptions.apply(
                to: &easy, request: setup.request, configuration: configuration, transfersOnLoop: loop.transferCount, body: setup.body,
                remainingMilliseconds: setup.remainingMilliseconds, proxyHeaderLines: setup.proxyHeaderLines,
                acceptsCompressedContent: setup.acceptsCompressedContent)
            if let tls = setup.tls { try CurlRequestOptions.apply(tls, to: easy, url: url) }
        } catch {
            easy.cleanup()
            setup.tls?.hook?.hopEnded()
            throw error
        }
        hopTLS = setup.tls?.hook
        // From here the hop owns one retain of self and one of the driver, given back by releaseHop().
        hop = easy
        hopOwner = events
        do {
            try installCallbacks(on: easy, context: Unmanaged.passRetained(self).toOpaque(), readsBody: setup.body != nil)
        } catch {
            _ = releaseHop()
            throw error
        }
        hopStartedAt = Date()
        guard loop.add(easy: easy.raw, driver: self) else {
            _ = releaseHop()
            throw TransferError(.cancelled, "the transfer loop is shut down", failingURL: url)
        }
    }

    private func installCallbacks(on easy: EasyHandle, context: UnsafeMutableRawPointer, readsBody: Bool) throws(TransferError) {
        try easy.set(CURLOPT_HEADERDATA, pointer: context, "CURLOPT_HEADERDATA")
        try easy.set(CURLOPT_HEADERFUNCTION, callback: curlTransferHeaderCallback, "CURLOPT_HEADERFUNCTION")
        try easy.set(CURLOPT_WRITEDATA, pointer: context, "CURLOPT_WRITEDATA")
        try easy.set(CURLOPT_WRITEFUNCTION, callback: curlTransferWriteCallback, "CURLOPT_WRITEFUNCTION")
        try easy.set(CURLOPT_XFERINFODATA, pointer: context, "CURLOPT_XFERINFODATA")
        guard ferry_easy_setopt_xferinfo_callback(easy.raw, curlTransferProgressCallback) == CURLE_OK else {
            throw TransferError(.unknown, "libcurl refused CURLOPT_XFERINFOFUNCTION")
        }
        try easy.set(CURLOPT_NOPROGRESS, 0, "CURLOPT_NOPROGRESS")
        if configuration.connectionPolicy != nil {
            try easy.set(CURLOPT_OPENSOCKETDATA, pointer: context, "CURLOPT_OPENSOCKETDATA")
            guard ferry_easy_setopt_opensocket_callback(easy.raw, curlTransferOpenSocketCallback) == CURLE_OK else {
                throw TransferError(.unknown, "libcurl refused CURLOPT_OPENSOCKETFUNCTION")
            }
        }
        if readsBody {
            try easy.set(CURLOPT_READDATA, pointer: context, "CURLOPT_READDATA")
            try easy.set(CURLOPT_READFUNCTION, callback: curlTransferReadCallback, "CURLOPT_READFUNCTION")
            try easy.set(CURLOPT_SEEKDATA, pointer: context, "CURLOPT_SEEKDATA")
            guard ferry_easy_setopt_seek_callback(easy.raw, curlTransferSeekCallback) == CURLE_OK else {
                throw TransferError(.unknown, "libcurl refused CURLOPT_SEEKFUNCTION")
            }
        }
    }

    /// Frees the current hop's handle and the retains its callbacks held; returns the driver's, for
    /// the caller to hold while it still reports to it.
    private func releaseHop() -> AnyObject? {
        guard let easy = hop else { return nil }
        hop = nil
        easy.cleanup()
        hopTLS?.hopEnded()
        hopTLS = nil
        let owner = hopOwner
        hopOwner = nil
        Unmanaged.passUnretained(self).release()
        return owner
    }

    /// Takes the current hop out of curl at once (cancel, failures outside curl's callbacks). What
    /// curl learnt of a non-HTTP file is kept, as when curl ends the hop itself: a paused ftp
    /// download's resume data needs its size even when the size came after the first byte.
    func stopHop() {
        guard let easy = hop else { return }
        if !isHTTP { endedHopFacts = (announcedContentLength, remoteFileTime) }
        loop.remove(easy: easy.raw)
        let measured = easy.transactionMetrics(url: hopURL, fetchStart: hopStartedAt, outcome: .stopped)
        withExtendedLifetime(releaseHop()) { events.curlHopMeasured(measured) }
    }

    /// Tells curl which directions to hold. The mask is recorded before calling curl, because
    /// unpausing may run the write callback at once, and it may pause again.
    func hold(receiving: Bool, sending: Bool) {
        guard let easy = hop else { return }
        let desired = (receiving ? FERRY_CURLPAUSE_RECV : 0) | (sending ? FERRY_CURLPAUSE_SEND : 0)
        guard desired != pauseMask else { return }
        pauseMask = desired
        _ = easy.pause(desired)
    }

    /// The length curl announced for a body without HTTP headers (ftp, file); nil when unknown.
    var announcedContentLength: Int64? {
        guard let easy = hop else { return endedHopFacts.announcedLength }
        return easy.info(offset: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The remote file's modification time (ftp's MDTM, asked with CURLOPT_FILETIME), in seconds
    /// since 1970; nil when the server did not say.
    var remoteFileTime: Int64? {
        guard let easy = hop else { return endedHopFacts.fileTime }
        return easy.info(offset: CURLINFO_FILETIME_T).flatMap { $0 >= 0 ? $0 : nil }
    }

    // MARK: - From the loop

    func curlDidFinish(easy: UnsafeMutableRawPointer, result: CURLcode) {
        let detail = hop?.errorDetail ?? ""
        // A body-less ftp or file hop's response is made after its end: keep what curl knew.
        if !isHTTP { endedHopFacts = (announcedContentLength, remoteFileTime) }
        let measured = hop?.transactionMetrics(url: hopURL, fetchStart: hopStartedAt, outcome: result == CURLE_OK ? .completed : .failed)
        let owner = releaseHop()
        withExtendedLifetime(owner) {
            if let measured { events.curlHopMeasured(measured) }
            guard result != CURLE_OK else {
                events.curlHopEnded(failure: nil, refusedByPolicy: false)
                return
            }
            if let refusedAddress, let policy = configuration.connectionPolicy {
                events.curlHopEnded(failure: TransferError(
                    .destinationForbidden, "connecting to \(refusedAddress) is not allowed (\(policy.name))",
                    failingURL: hopURL, curlCode: Int(result.rawValue), curlDetail: detail), refusedByPolicy: true)
                return
            }
            let error = CurlErrorMapping.error(for: result, detail: detail, url: hopURL, configuration: configuration)
            events.curlHopEnded(failure: error, refusedByPolicy: false)
        }
    }

    func loopDidShutDown(easy: UnsafeMutableRawPointer) {
        let owner = releaseHop()
        withExtendedLifetime(owner) { events.curlLoopShutDown() }
    }

    func checkIdle(now: UInt64) {
        guard hop != nil else { return }
        withExtendedLifetime(hopOwner) { events.curlIdleCheck(now: now) }
    }

    // MARK: - curl callbacks (on the loop thread, inside curl)

    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard events.curlHeaderLineArrived() else { return 0 }
        guard isHTTP else { return bytes.count }
        if let head = parser.consume(line: bytes) {
            // The head of a tunnel's CONNECT response arrives while curl has no response code yet.
            if tunnels, let easy = hop, (easy.info(CURLINFO_RESPONSE_CODE) ?? 0) == 0 {
                if !(200..<300).contains(head.statusCode) { events.curlTunnelRefused(head) }
                return bytes.count
            }
            return events.curlHeadArrived(head) ? bytes.count : 0
        }
        return bytes.count
    }

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        switch events.curlBodyArrived(bytes) {
        case .accepted: return bytes.count
        case .abort: return 0
        case .pause:
            pauseMask |= FERRY_CURLPAUSE_RECV
            return Int(FERRY_WRITEFUNC_PAUSE)
        }
    }

    fileprivate func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        switch events.curlReadBody(into: buffer) {
        case .bytes(let count): return count
        case .end: return 0
        case .abort: return Int(FERRY_READFUNC_ABORT)
        case .pause:
            pauseMask |= FERRY_CURLPAUSE_SEND
            return Int(FERRY_READFUNC_PAUSE)
        }
    }

    fileprivate func seekBody(to offset: Int64) -> Bool {
        events.curlSeekBody(to: offset)
    }

    fileprivate func progress(uploaded: Int64) -> Int32 {
        events.curlUploadProgressed(uploaded) ? 0 : 1
    }

    /// Opens a socket for curl, after the connection policy accepted the resolved address.
    fileprivate func openSocket(for address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        if let policy = configuration.connectionPolicy {
            var bytes = [UInt8](repeating: 0, count: 16)
            var port: Int32 = 0
            let version = ferry_sockaddr_inspect(address, &bytes, &port)
            guard version == 4 || version == 6 else {
                refusedAddress = "an address that is not IPv4 or IPv6"
                return FERRY_SOCKET_BAD
            }
            let candidate = ConnectionAddress(
                family: version == 4 ? .ipv4 : .ipv6, bytes: Array(bytes.prefix(version == 4 ? 4 : 16)), port: Int(port))
            guard policy.allows(candidate) else {
                refusedAddress = candidate.description
                return FERRY_SOCKET_BAD
            }
        }
        return ferry_open_socket(address)
    }
}

// MARK: - C callbacks: non-capturing, they find the transfer through the context pointer.

/// The transfer behind a callback's context pointer. curl hands back exactly the pointer each hop set,
/// which holds a retain until the hop is released, so it is never dangling; nil would be a curl bug.
private func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer? {
    context.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue() }
}

private let curlTransferHeaderCallback: ferry_data_callback = { pointer, size, count, context in
    guard let owner = transfer(context) else { return 0 }
    owner.insideCallback = true
    defer { owner.insideCallback = false }
    return owner.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

private let curlTransferWriteCallback: ferry_data_callback = { pointer, size, count, context in
    guard let owner = transfer(context) else { return 0 }
    owner.insideCallback = true
    defer { owner.insideCallback = false }
    return owner.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

private let curlTransferReadCallback: ferry_data_callback = { pointer, size, count, context in
    guard let owner = transfer(context) else { return Int(FERRY_READFUNC_ABORT) }
    owner.insideCallback = true
    defer { owner.insideCallback = false }
    return owner.readBody(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
}

private let curlTransferOpenSocketCallback: ferry_opensocket_callback = { context, _, address in
    transfer(context)?.openSocket(for: address) ?? FERRY_SOCKET_BAD
}

private let curlTransferSeekCallback: ferry_seek_callback = { context, offset, origin in
    // CURL_SEEKFUNC_OK = 0, CURL_SEEKFUNC_CANTSEEK = 2. curl only ever seeks from the start.
    guard origin == SEEK_SET else { return 2 }
    return transfer(context)?.seekBody(to: Int64(offset)) == true ? 0 : 2
}

private let curlTransferProgressCallback: ferry_xferinfo_callback = { context, _, _, _, uploaded in
    transfer(context)?.progress(uploaded: Int64(uploaded)) ?? 1
}
