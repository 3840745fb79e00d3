import Foundation

/// What to fetch: the seeds' URL request (LC-21). A value type, so a task keeps its own deep copy and
/// later changes to the caller's variable have no effect on it (LC-20).
public struct TransferRequest: Sendable, Equatable {
    public var url: URL
    /// `GET` unless set; a body without a method set sends `POST`.
    public var method: String
    public var headers: HTTPHeaders
    /// A small in-memory body. Upload tasks take their body separately (`UploadBody`).
    public var body: Data?
    /// Idle timeout for this request (LC-22): the longest time without any bytes moving. Nil: the
    /// session's `requestTimeout`.
    public var timeoutInterval: TimeInterval?
    /// Higher runs first when a host's connections are all in use. 0.5 is the default (0...1).
    public var priority: Float

    public init(
        url: URL,
        method: String = "GET",
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeoutInterval: TimeInterval? = nil,
        priority: Float = TransferRequest.defaultPriority
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
        self.priority = priority
    }

    public static let defaultPriority: Float = 0.5
    public static let lowPriority: Float = 0.25
    public static let highPriority: Float = 0.75
}
