import Foundation

/// The cache's part in one transfer (CA-05..CA-09, CA-24): looks each hop's request up, makes it
/// conditional when an entry needs revalidating, turns a 304 into the stored response, and proposes
/// a storable response for the cache. Loop-confined, like the `TaskTransfer` that owns it.
///
/// A storable body is never held twice: a download's is its file, a collected data task's is the
/// collected bytes; only a streamed data task's body is copied as it passes, up to
/// `streamedCaptureLimit`.
struct TransferCaching {
    enum HopPlan {
        /// Send this request: the hop's own, or made conditional on a stored entry.
        case network(TransferRequest)
        /// Answer from the cache without a request, with the entry's body already opened: `.hit`, or
        /// `.stale` with `revalidation` to send in the background (RFC 5861 §3). Also the cache's
        /// own answers: a 304 to the caller's conditional request, a 504 for `only-if-cached`.
        case serve(CachedResponse, LocalBody, CacheStatus, revalidation: TransferRequest?)
        /// `returnCacheDataDontLoad` and nothing stored (CA-08).
        case fail(TransferError)
    }

    /// The most bytes of a streamed data task's body copied for the cache: its consumer has the
    /// bytes already, and a bigger copy per transfer adds up over a thousand transfers.
    static let streamedCaptureLimit = 1 << 20

    /// What is kept of the hop's response for the cache.
    private enum Capture {
        case none
        /// Taken from the sink when the transfer ends (a download's file, a data task's collected
        /// bytes), unless the body turns out to be streamed.
        case fromSink
        /// A streamed body, copied as it arrives.
        case copy(Data)
    }

    private let cache: (any ResponseCache)?
    private let defaultPolicy: RequestCachePolicy
    /// Ephemeral sessions keep what they store in memory only (CA-24, SES-03).
    private let memoryOnly: Bool
    /// The entry the current hop's conditional request revalidates, and its body, opened at lookup
    /// so that an eviction meanwhile cannot take it away.
    private var validating: (entry: CachedResponse, body: LocalBody)?
    /// A stored entry that may answer instead if the hop fails or the origin answers 500, 502, 503
    /// or 504 (`stale-if-error`, RFC 5861 §4).
    private var fallback: (entry: CachedResponse, body: LocalBody)?
    private var hopRequest: TransferRequest?
    private var hopSent = Date()
    private var capture = Capture.none
    /// The most body bytes an entry may have: what the cache keeps (a tenth of its larger tier).
    private var captureLimit = 0
    private var captureResponseDate = Date()
    /// The entry a custom protocol was given to judge, opened at lookup, until it answers or reports
    /// a response of its own.
    private var protocolEntry: (CachedResponse, LocalBody)?
    /// How a custom protocol asked its response to be stored; nil for http hops, which RFC 9111 rules.
    private var protocolStoragePolicy: CachedResponse.StoragePolicy?

    init(configuration: SessionConfiguration) {
        cache = configuration.urlCache
        defaultPolicy = configuration.requestCachePolicy
        memoryOnly = configuration.kind == .ephemeral
    }

    /// What the hop for `request` does. `eligible`: the transfer could take a cached answer (no
    /// upload body, no resume).
    mutating func plan(for request: TransferRequest, eligible: Bool) -> HopPlan {
        validating = nil
        fallback = nil
        capture = .none
        protocolEntry = nil
        protocolStoragePolicy = nil
        hopRequest = request
        hopSent = Date()
        let policy = request.cachePolicy ?? defaultPolicy
        let scheme = request.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            // Other protocols are never cached; the policy only gates the network (CA-01).
            return policy == .returnCacheDataDontLoad ? .fail(Self.offlineMiss(request)) : .network(request)
        }
        guard let cache else { return Self.planWithoutCache(for: request, policy: policy) }
        // The caller's own conditional request may be answered by a fresh entry (§4.3.2).
        let callersConditional = policy == .useProtocolCachePolicy && HTTPCacheRules.isCallersConditional(request)
        // So may one byte range, from a fresh complete entry (§3.4).
        let singleRange = policy == .useProtocolCachePolicy && HTTPCacheRules.isSingleRangeRequest(request)
        let lookedUp = eligible && policy != .reloadIgnoringLocalCacheData
            && (HTTPCacheRules.isLookupEligible(request) || callersConditional || singleRange)
        // An entry whose body file went since the lookup (evicted) counts as none.
        let found = lookedUp ? cache.cachedResponse(for: request).flatMap { entry in LocalBody(entry.body).map { (entry, $0) } } : nil
        let now = Date()
        let serve = { (found: (CachedResponse, LocalBody)) in
            HopPlan.serve(HTTPCacheRules.served(found.0, now: now), found.1, .hit, revalidation: nil)
        }
        switch policy {
        case .returnCacheDataDontLoad:
            return found.map(serve) ?? .fail(Self.offlineMiss(request))
        case .returnCacheDataElseLoad:
            return found.map(serve) ?? .network(request)
        case .reloadIgnoringLocalCacheData:
            return .network(request)
        case .useProtocolCachePolicy:
            let onlyIfCached = CacheControl(request.headers).has("only-if-cached")
            let timeout = HopPlan.serve(HTTPCacheRules.gatewayTimeout(for: request), LocalBody(Data()), .miss, revalidation: nil)
            guard let found else { return onlyIfCached ? timeout : .network(request) }
            switch HTTPCacheRules.use(of: found.0, for: request, now: now) {
            case .serve where callersConditional && HTTPCacheRules.isNotModified(found.0, for: request):
                let answer = HTTPCacheRules.notModified(from: HTTPCacheRules.served(found.0, now: now))
                return .serve(answer, LocalBody(Data()), .hit, revalidation: nil)
            case .serve where singleRange:
                return servePart(of: found, for: request, now: now) ?? .network(request)
            case .serve:
                return serve(found)
            case .serveWhileRevalidating where !callersConditional && !singleRange:
                var revalidation = request
                // Asks the origin past every stored entry, this one included (§5.2.1.1).
                revalidation.headers["Cache-Control"] = "max-age=0"
                return .serve(HTTPCacheRules.served(found.0, now: now), found.1, .stale, revalidation: revalidation)
            case .serveWhileRevalidating, .revalidate:
                if onlyIfCached { return timeout }
                // The caller's conditional or range request goes as it is; its 304 or 206 is the caller's.
                if callersConditional || singleRange { return .network(request) }
                if HTTPCacheRules.mayServeOnError(found.0, for: request, now: now) { fallback = found }
                guard let conditional = HTTPCacheRules.conditionalRequest(request, for: found.0) else { return .network(request) }
                validating = found
                return .network(conditional)
            }
        }
    }

    /// The hop of a session without a cache: what `plan` decides when nothing is found, without
    /// working out what a lookup would have asked for.
    private static func planWithoutCache(for request: TransferRequest, policy: RequestCachePolicy) -> HopPlan {
        switch policy {
        case .returnCacheDataDontLoad:
            return .fail(offlineMiss(request))
        case .useProtocolCachePolicy where CacheControl(request.headers).has("only-if-cached"):
            return .serve(HTTPCacheRules.gatewayTimeout(for: request), LocalBody(Data()), .miss, revalidation: nil)
        case .useProtocolCachePolicy, .returnCacheDataElseLoad, .reloadIgnoringLocalCacheData:
            return .network(request)
        }
    }

    /// A fresh entry answering a single-range request (§3.4): the range as a 206, read from a complete
    /// 200 or from a stored part that holds it; the whole 200 when `If-Range` says it changed; nil
    /// (ask the origin) when the range is not satisfiable from the entry.
    private func servePart(of found: (CachedResponse, LocalBody), for request: TransferRequest, now: Date) -> HopPlan? {
        let (entry, body) = found
        guard let (stored, length) = HTTPCacheRules.storedBytes(of: entry) else { return nil }
        let served = HTTPCacheRules.served(entry, now: now)
        guard HTTPCacheRules.ifRangeHolds(request, for: entry) else {
            return entry.response.statusCode == 200 ? .serve(served, body, .hit, revalidation: nil) : nil
        }
        guard let range = HTTPCacheRules.requestedRange(request, length: length), stored.contains(range.lowerBound),
            stored.contains(range.upperBound),
            let part = LocalBody(entry.body, range: (range.lowerBound - stored.lowerBound)...(range.upperBound - stored.lowerBound))
        else { return nil }
        return .serve(HTTPCacheRules.partialContent(from: served, range: range, length: length), part, .hit, revalidation: nil)
    }

    enum ProtocolHopPlan {
        /// Start the protocol; `cached` is what the cache holds under its key, for it to judge.
        case load(cached: CachedResponse?)
        /// Answer with the stored entry without starting the protocol.
        case serve(CachedResponse, LocalBody)
        case fail(TransferError)
    }

    /// What the hop a custom protocol loads does with the cache. Without a key (`key` nil, or with a
    /// line break that would mix it up with a variant's part of the storage key), the cache neither
    /// answers nor stores it. With one, the entry under it is found as the request's cache policy
    /// says; freshness is the protocol's to judge, not RFC 9111's. What an earlier hop planned is
    /// forgotten either way.
    mutating func planProtocolHop(for request: TransferRequest, key: String?, eligible: Bool) -> ProtocolHopPlan {
        validating = nil
        fallback = nil
        capture = .none
        protocolEntry = nil
        protocolStoragePolicy = nil
        hopRequest = nil
        guard let cache, let key, !key.contains(where: \.isNewline) else { return .load(cached: nil) }
        var keyed = request
        keyed.protocolCacheKey = key
        hopRequest = keyed
        hopSent = Date()
        let policy = request.cachePolicy ?? defaultPolicy
        let found = eligible && policy != .reloadIgnoringLocalCacheData
            ? cache.cachedResponse(for: keyed).flatMap { entry in LocalBody(entry.body).map { (entry, $0) } } : nil
        switch policy {
        case .returnCacheDataDontLoad:
            return found.map { .serve($0.0, $0.1) } ?? .fail(Self.offlineMiss(request))
        case .returnCacheDataElseLoad:
            return found.map { .serve($0.0, $0.1) } ?? .load(cached: nil)
        case .reloadIgnoringLocalCacheData, .useProtocolCachePolicy:
            protocolEntry = found
            return .load(cached: found?.0)
        }
    }

    /// The protocol found the entry it was given still valid: it answers, once.
    mutating func takeProtocolEntry() -> (CachedResponse, LocalBody)? {
        defer { protocolEntry = nil }
        return protocolEntry
    }

    /// The protocol reported its response: with a key and a storage policy that allows it, the body
    /// is kept for the cache as an http response's is, stored as the protocol asked (an ephemeral
    /// session's in memory only).
    mutating func protocolResponseArrived(storagePolicy: CachedResponse.StoragePolicy) {
        protocolEntry = nil
        guard let cache, hopRequest != nil, storagePolicy != .notAllowed else { return }
        captureLimit = max(cache.memoryCapacity, cache.diskCapacity) / 10
        captureResponseDate = Date()
        capture = .fromSink
        protocolStoragePolicy = storagePolicy
    }

    var hasFallback: Bool { fallback != nil }

    /// The stored entry that answers in place of the hop's failure or error status, as `stale`
    /// (RFC 5861 §4); nil when there is none. Taken once.
    mutating func takeFallback() -> (CachedResponse, LocalBody)? {
        defer { fallback = nil }
        return fallback.map { (HTTPCacheRules.served($0.entry, now: Date()), $0.body) }
    }

    /// The status a response of this hop reports: nil when no cache is configured or the URL is not http(s).
    var statusForNetworkResponse: CacheStatus? {
        guard cache != nil, let scheme = hopRequest?.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return nil
        }
        return .miss
    }

    enum Arrival {
        /// The response goes on to the task (and to the cache, when it may be stored).
        case deliver
        /// A 304 to a revalidation: the stored entry, refreshed with the 304's headers and stored
        /// again, is delivered instead with its body.
        case revalidated(CachedResponse, LocalBody)
        /// An error status with a `stale-if-error` entry to fall back on: the hop is dropped and
        /// `takeFallback()` answers.
        case fallBack
        /// A 304 that names another version than the stored one (§4.3.4): it refreshes nothing,
        /// and this request, sent past the cache, fetches the response.
        case refetch(TransferRequest)
    }

    /// A hop's response head arrived: what becomes of it. The body of a response that may be
    /// stored is kept for the cache.
    mutating func responseArrived(_ response: TransferResponse) -> Arrival {
        let now = Date()
        if let cache, let request = hopRequest {
            for url in HTTPCacheRules.invalidatedURLs(request: request, response: response) {
                cache.removeCachedResponse(for: TransferRequest(url: url))
            }
        }
        if let (entry, body) = validating, response.statusCode == 304, let request = hopRequest {
            validating = nil
            guard HTTPCacheRules.notModifiedSelects(entry, response) else {
                var unconditional = request
                unconditional.cachePolicy = .reloadIgnoringLocalCacheData
                return .refetch(unconditional)
            }
            let refreshed = HTTPCacheRules.refreshed(entry, with: response, requestDate: hopSent, responseDate: now)
            cache?.storeCachedResponse(refreshed, for: request)
            fallback = nil
            return .revalidated(HTTPCacheRules.served(refreshed, now: now), body)
        }
        validating = nil
        if fallback != nil, let status = response.statusCode, HTTPCacheRules.errorStatuses.contains(status) { return .fallBack }
        fallback = nil
        if let cache, let request = hopRequest, HTTPCacheRules.isStorable(
            request: request, response: response, sharedAmongCredentials: cache.isSharedAmongCredentials)
        {
            captureLimit = max(cache.memoryCapacity, cache.diskCapacity) / 10
            captureResponseDate = now
            capture = .fromSink
        }
        return .deliver
    }

    /// Body bytes of the hop's response, on their way to `sink`: copied when it streams them, up to
    /// the limit; otherwise the sink keeps them.
    mutating func received(_ bytes: UnsafeRawBufferPointer, into sink: ResponseSink) {
        guard case .stream = sink else { return }
        copy(bytes)
    }

    /// The response is not to be stored after all: a multipart/x-mixed-replace stream is a series of
    /// replacements, no one entity a later request could be answered with.
    mutating func forgoStoring() {
        capture = .none
    }

    /// Body bytes of a hop the task does not deliver (a redirect it follows): no sink keeps them, so
    /// they are copied for the cache, up to the streamed limit.
    mutating func receivedUndelivered(_ bytes: UnsafeRawBufferPointer) {
        copy(bytes)
    }

    private mutating func copy(_ bytes: UnsafeRawBufferPointer) {
        var copied: Data
        switch capture {
        case .none: return
        case .fromSink:
            copied = Data()
            captureLimit = min(captureLimit, Self.streamedCaptureLimit)
        case .copy(let sofar): copied = sofar
        }
        capture = .none
        if copied.count + bytes.count <= captureLimit {
            copied.append(contentsOf: bytes)
            capture = .copy(copied)
        }
    }

    /// The entry a completed response would be stored as (CA-10: https on disk too), or nil when it
    /// is not to be stored. Taken once.
    mutating func takeProposedEntry(
        response: TransferResponse, sink: ResponseSink
    ) -> (entry: CachedResponse, request: TransferRequest)? {
        defer { capture = .none }
        guard let request = hopRequest, let names = ResponseCacheKey.varyingHeaderNames(of: response) else { return nil }
        let body: CachedResponse.Body
        switch (capture, sink) {
        case (.copy(let copied), _): body = .data(copied)
        case (.fromSink, .file(let file, _)): body = .file(file.url, length: file.length)
        case (.fromSink, .collect(let collected, _)): body = .data(collected.data)
        // No body byte reached a sink: an empty body.
        case (.fromSink, .stream), (.fromSink, .none): body = .data(Data())
        case (.none, _): return nil
        }
        guard body.length <= Int64(captureLimit) else { return nil }
        // A part is stored only as exactly its bytes (a resumed download's file holds more).
        if let (range, _) = HTTPCacheRules.contentRange(of: response), body.length != Int64(range.count) { return nil }
        var stored = response
        stored.cacheStatus = nil
        stored.headers = HTTPCacheRules.storableHeaders(response.headers)
        let allowed = protocolStoragePolicy ?? .allowed
        let entry = CachedResponse(
            response: stored, body: body, storagePolicy: memoryOnly ? .allowedInMemoryOnly : allowed,
            requestDate: hopSent, responseDate: captureResponseDate,
            varyingRequestHeaders: ResponseCacheKey.values(of: names, in: request))
        return (entry, request)
    }

    /// The hop's redirect is being followed: stored as received (RFC 9111 §3, a 301 or 308
    /// heuristically, any redirect with explicit freshness), so that a later request follows it from
    /// the cache. The delegate is asked about the task's final response only.
    mutating func redirectFollowed(_ response: TransferResponse) {
        if let proposal = takeProposedEntry(response: response, sink: .none) { store(proposal.entry, for: proposal.request) }
    }

    /// Stores what the will-cache decision settled on (CA-12): an ephemeral session's entries stay
    /// in memory whatever the delegate said.
    func store(_ entry: CachedResponse?, for request: TransferRequest) {
        guard let cache, var entry else { return }
        if memoryOnly, entry.storagePolicy == .allowed { entry.storagePolicy = .allowedInMemoryOnly }
        cache.storeCachedResponse(entry, for: request)
        // A part that completes the parts stored before it makes a complete entry (§3.4).
        guard entry.storagePolicy != .notAllowed,
            let whole = PartialResponses.completed(by: entry, for: request, in: cache, directory: FileManager.default.temporaryDirectory)
        else { return }
        cache.storeCachedResponse(whole.entry, for: whole.request)
        try? FileManager.default.removeItem(at: whole.file)
    }

    /// Whether the delegate may be asked about storing (CA-11): not in ephemeral sessions. Only data
    /// and upload tasks are asked.
    var asksDelegate: Bool { !memoryOnly }

    private static func offlineMiss(_ request: TransferRequest) -> TransferError {
        TransferError(
            .resourceUnavailable, "returnCacheDataDontLoad: no cached response, and the request may not be sent",
            failingURL: request.url)
    }
}
