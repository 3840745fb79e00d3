import Foundation

/// A loader for requests the engine does not load itself, or loads differently: the seeds'
/// `NSURLProtocol` (PR-04..PR-07, PR-13), with its cache equivalence and cached response.
///
/// A conforming type is listed in `SessionConfiguration.protocolClasses` (PR-08) or registered for
/// every session of the process with `ProtocolRegistry.register(_:)`. For each hop of a task (the
/// first request, each followed redirect) the session's types are asked in their order, then the
/// registered ones, the most recently registered first; the first whose `canInit(with:)` answers true
/// loads the hop, before any built-in scheme: a protocol may even take http or https (PR-04).
///
/// The engine makes one instance per hop, calls `startLoading()`, and learns what happens through
/// the `TransferProtocolClient` it passed in: the response, the body, a redirect, an authentication
/// challenge, the end. It calls `stopLoading()` exactly once per instance, when its hop is over for
/// any reason: after `didFinishLoading`, `didFail` or `wasRedirected`, and when the task is cancelled
/// or fails on the engine's side. Everything else about the task (its delegate's decisions, where
/// the body goes, progress, the async API) is as for built-in schemes.
///
/// The engine calls these methods on its transfer threads, which run other transfers too: each must
/// return promptly and leave slow work (I/O, waiting) to a task or thread of the protocol's own.
public protocol TransferProtocol: AnyObject, Sendable {
    /// Whether this type loads `request`. Asked for every hop of every task the type may see, so it
    /// answers from the request alone (its scheme, a property a protocol set, PR-05).
    static func canInit(with request: TransferRequest) -> Bool

    /// The request in canonical form (PR-13), for instance with the path `/` an empty one means.
    /// When it differs from the request, the task's delegate is asked as for a redirect without a
    /// redirect response (RD-06) before the hop starts. Must be idempotent: the canonical form of a
    /// canonical request is itself. Default: the request unchanged.
    static func canonicalRequest(for request: TransferRequest) -> TransferRequest

    /// The key under which the session's response cache keeps this type's responses: the seeds'
    /// cache equivalence (two requests with one key are answered by one entry). Asked for each hop,
    /// after its canonical form is settled. With a key, the instance finds the stored entry in
    /// `client.cachedResponse` and may answer with it (`client.cachedResponseIsValid()`), and a
    /// response it reports with a storage policy other than `.notAllowed` is stored under the key
    /// once its body is complete (the will-cache decision first, as for http). The request's
    /// `cachePolicy` applies as for http: `.reloadIgnoringLocalCacheData` finds nothing,
    /// `.returnCacheDataElseLoad` and `.returnCacheDataDontLoad` answer from a stored entry without
    /// starting the protocol. Default: nil, the engine's cache neither answers nor stores the hop.
    /// A key with a line break is not used.
    static func cacheKey(for request: TransferRequest) -> String?

    /// Made for one hop, with the request as the delegate settled it; `client` takes what happens.
    init(request: TransferRequest, client: TransferProtocolClient)

    func startLoading()

    /// Stops loading: what the client reports afterwards is dropped.
    func stopLoading()

    /// The answer to a challenge this instance reported with `client.didReceive(_:)`: the seeds'
    /// challenge sender (PR-07). `.performDefaultHandling` never arrives: the engine settles it
    /// first, into `.useCredential` with the credential storage's default for the space (else the
    /// challenge's proposed credential), or `.continueWithoutCredential`. After `.cancel` the task is
    /// cancelled (and `stopLoading()` follows). Default: ignores the answer.
    func challenge(_ challenge: AuthenticationChallenge, answeredWith disposition: ChallengeDisposition)
}

extension TransferProtocol {
    public static func canonicalRequest(for request: TransferRequest) -> TransferRequest { request }

    public static func cacheKey(for request: TransferRequest) -> String? { nil }

    public func challenge(_ challenge: AuthenticationChallenge, answeredWith disposition: ChallengeDisposition) {}

    /// The value a protocol stored on `request` under `key` (PR-05), nil when there is none.
    public static func property(forKey key: String, in request: TransferRequest) -> String? {
        request.protocolProperties[key]
    }

    /// Marks `request` with `value` under `key` (PR-05): a protocol that sends a request on through
    /// another session marks it so that its own `canInit(with:)` then declines it.
    public static func setProperty(_ value: String, forKey key: String, in request: inout TransferRequest) {
        request.protocolProperties[key] = value
    }

    public static func removeProperty(forKey key: String, in request: inout TransferRequest) {
        request.protocolProperties[key] = nil
    }
}
