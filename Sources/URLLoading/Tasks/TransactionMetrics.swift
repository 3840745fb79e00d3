import Foundation

/// What one request of a task cost on the wire: one hop through curl (the first request, each
/// redirect, each authentication round). A response served from the cache, or a `data:` URL, has
/// no transaction: no request left the process. A hop a custom protocol loaded has one with its
/// times, status and body size only, named by its scheme (PR-04).
///
/// Times are offsets from `fetchStart` and cumulative, as curl measures them: `secureConnectionEnd`
/// includes the name lookup and the TCP connect before it. A phase a reused connection skipped is nil.
public struct TransactionMetrics: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        /// The response arrived whole (a redirect or a challenge response counts).
        case completed
        /// The hop failed: a network error, a timeout, a refused address.
        case failed
        /// The hop was taken out before it ended: cancel, pause, a decision, a stop by the task.
        case stopped
    }

    public var request: URL
    /// The response's status; nil when no head arrived (or the scheme has none, as for `file:`).
    public var statusCode: Int?
    public var outcome: Outcome
    /// When the hop was handed to curl.
    public var fetchStart: Date
    public var nameLookupEnd: Duration?
    public var connectEnd: Duration?
    /// The end of the TLS handshake (with the origin, or with an https proxy); nil without TLS.
    public var secureConnectionEnd: Duration?
    /// Everything before the first request byte was done.
    public var requestStart: Duration?
    /// The first response byte.
    public var responseStart: Duration?
    public var responseEnd: Duration
    /// The hop used a connection an earlier hop had opened (connection reuse, TT-06).
    public var isReusedConnection: Bool
    public var remoteAddress: String?
    public var remotePort: Int?
    /// `http/1.0`, `http/1.1`, `h2`, or the scheme for others (`ftp`, `file`).
    public var networkProtocolName: String?
    public var requestHeaderBytes: Int64
    public var requestBodyBytes: Int64
    public var responseHeaderBytes: Int64
    /// Body bytes as they came over the wire (before any decoding of a compressed body).
    public var responseBodyBytes: Int64

    /// Name lookup alone; nil when the hop looked up nothing.
    public var domainLookupDuration: Duration? { nameLookupEnd }
    /// The TCP connect alone, after the lookup.
    public var connectDuration: Duration? { connectEnd.map { $0 - (nameLookupEnd ?? .zero) } }
    /// The TLS handshake alone, after the connect.
    public var secureConnectionDuration: Duration? { secureConnectionEnd.map { $0 - (connectEnd ?? .zero) } }
    /// From the request's start to the first response byte: the origin's think time plus one round trip.
    public var waitDuration: Duration? {
        guard let responseStart else { return nil }
        return responseStart - (requestStart ?? .zero)
    }

    public init(
        request: URL, statusCode: Int? = nil, outcome: Outcome, fetchStart: Date, nameLookupEnd: Duration? = nil,
        connectEnd: Duration? = nil, secureConnectionEnd: Duration? = nil, requestStart: Duration? = nil,
        responseStart: Duration? = nil, responseEnd: Duration, isReusedConnection: Bool, remoteAddress: String? = nil,
        remotePort: Int? = nil, networkProtocolName: String? = nil, requestHeaderBytes: Int64 = 0, requestBodyBytes: Int64 = 0,
        responseHeaderBytes: Int64 = 0, responseBodyBytes: Int64 = 0
    ) {
        self.request = request
        self.statusCode = statusCode
        self.outcome = outcome
        self.fetchStart = fetchStart
        self.nameLookupEnd = nameLookupEnd
        self.connectEnd = connectEnd
        self.secureConnectionEnd = secureConnectionEnd
        self.requestStart = requestStart
        self.responseStart = responseStart
        self.responseEnd = responseEnd
        self.isReusedConnection = isReusedConnection
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.networkProtocolName = networkProtocolName
        self.requestHeaderBytes = requestHeaderBytes
        self.requestBodyBytes = requestBodyBytes
        self.responseHeaderBytes = responseHeaderBytes
        self.responseBodyBytes = responseBodyBytes
    }
}

/// Every transaction of a task, in the order its hops ran, and the task's own interval.
public struct TaskMetrics: Sendable, Equatable {
    public var transactions: [TransactionMetrics] = []
    /// From the task's first hop to its completion; nil before it started.
    public var taskInterval: DateInterval?
    /// Redirects the task followed.
    public var redirectCount = 0

    public init() {}
}
