import Foundation

/// The cache's part in one transfer (CA-05..CA-09, CA-24): looks each hop's request up, makes it
/// conditional when an entry needs revalidating, turns a 304 into the stored response, and collects
/// a storable response's body for the cache. Loop-confined, like the `TaskTransfer` that owns it.
struct TransferCaching {
    enum HopPlan {
        /// Send this request: the hop's own, or made conditional on a stored entry.
        case network(TransferRequest)
        /// Answer from the cache without a request.
        case serve(CachedResponse)
        /// `returnCacheDataDontLoad` and nothing stored (CA-08).
        case fail(TransferError)
    }

    private let cache: (any ResponseCache)?
    private let defaultPolicy: RequestCachePolicy
    /// Ephemeral sessions keep what they store in memory only (CA-24, SES-03).
    private let memoryOnly: Bool
    /// The entry the current hop's conditional request revalidates.
    private var validating: CachedResponse?
    private var hopRequest: TransferRequest?
    private var hopSent = Date()
    /// The body of a response that may be stored, while it arrives; nil when it will not be.
    private var capture: Data?
    private var captureLimit = 0
    private var captureResponseDate = Date()

    init(configuration: SessionConfiguration) {
        cache = configuration.urlCache
        defaultPolicy = configuration.requestCachePolicy
        memoryOnly = configuration.kind == .ephemeral
    }

    /// What the hop for `request` does. `eligible`: the transfer could take a cached answer (no
    /// upload body, no resume).
    mutating func plan(for request: TransferRequest, eligible: Bool) -> HopPlan {
        validating = nil
        capture = nil
        hopRequest = request
        hopSent = Date()
        let policy = request.cachePolicy ?? defaultPolicy
        let scheme = request.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            // Other protocols are never cached; the policy only gates the network (CA-01).
            return policy == .returnCacheDataDontLoad ? .fail(Self.offlineMiss(request)) : .network(request)
        }
        let entry = eligible && HTTPCacheRules.isLookupEligible(request) && policy != .reloadIgnoringLocalCacheData
            ? cache?.cachedResponse(for: request) : nil
        switch policy {
        case .returnCacheDataDontLoad:
            return entry.map(HopPlan.serve) ?? .fail(Self.offlineMiss(request))
        case .returnCacheDataElseLoad:
            return entry.map(HopPlan.serve) ?? .network(request)
        case .reloadIgnoringLocalCacheData:
            return .network(request)
        case .useProtocolCachePolicy:
            guard let entry else { return .network(request) }
            if HTTPCacheRules.use(of: entry, for: request, now: Date()) == .serve { return .serve(entry) }
            guard let conditional = HTTPCacheRules.conditionalRequest(request, for: entry) else { return .network(request) }
            validating = entry
            return .network(conditional)
        }
    }

    /// The status a response of this hop reports: nil when no cache is configured or the URL is not http(s).
    var statusForNetworkResponse: CacheStatus? {
        guard cache != nil, let scheme = hopRequest?.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return nil
        }
        return .miss
    }

    /// A hop's response head arrived. For a 304 to a revalidation: the stored entry refreshed with the
    /// 304's headers (and stored again), to be delivered instead. Otherwise nil, and the body is
    /// collected when the response may be stored.
    mutating func responseArrived(_ response: TransferResponse) -> CachedResponse? {
        let now = Date()
        if let entry = validating, response.statusCode == 304, let request = hopRequest {
            validating = nil
            let refreshed = HTTPCacheRules.refreshed(entry, with: response, requestDate: hopSent, responseDate: now)
            cache?.storeCachedResponse(refreshed, for: request)
            return refreshed
        }
        validating = nil
        if let cache, let request = hopRequest, HTTPCacheRules.isStorable(request: request, response: response) {
            capture = Data()
            captureLimit = max(cache.memoryCapacity, cache.diskCapacity) / 10
            captureResponseDate = now
        }
        return nil
    }

    /// Body bytes of the hop's response; a body too big for the cache stops being collected.
    mutating func received(_ bytes: UnsafeRawBufferPointer) {
        guard capture != nil else { return }
        if capture!.count + bytes.count > captureLimit {
            capture = nil
        } else {
            capture!.append(contentsOf: bytes)
        }
    }

    /// The entry a completed response would be stored as (CA-10: https on disk too), or nil when it
    /// is not to be stored. Taken once.
    mutating func takeProposedEntry(response: TransferResponse) -> (entry: CachedResponse, request: TransferRequest)? {
        defer { capture = nil }
        guard let body = capture, let request = hopRequest, let names = ResponseCacheKey.varyingHeaderNames(of: response) else {
            return nil
        }
        var stored = response
        stored.cacheStatus = nil
        let entry = CachedResponse(
            response: stored, data: body, storagePolicy: memoryOnly ? .allowedInMemoryOnly : .allowed,
            requestDate: hopSent, responseDate: captureResponseDate,
            varyingRequestHeaders: ResponseCacheKey.values(of: names, in: request))
        return (entry, request)
    }

    /// Stores what the will-cache decision settled on (CA-12): an ephemeral session's entries stay
    /// in memory whatever the delegate said.
    func store(_ entry: CachedResponse?, for request: TransferRequest) {
        guard let cache, var entry else { return }
        if memoryOnly, entry.storagePolicy == .allowed { entry.storagePolicy = .allowedInMemoryOnly }
        cache.storeCachedResponse(entry, for: request)
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
