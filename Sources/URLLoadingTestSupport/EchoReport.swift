import Foundation

/// What `/echo` answers: the request as the origin server received it (see `EchoRoutes`).
public struct EchoReport: Decodable, Sendable {
    public let method: String
    public let uri: String
    public let http_version: String
    /// In the order received, each `[name, value]`.
    public let headers: [[String]]
    public let body_length: Int
    /// Only for bodies under 1 MiB.
    public let body_base64: String?
    public let body_fnv1a64: String

    public init(_ data: Data) throws {
        self = try JSONDecoder().decode(EchoReport.self, from: data)
    }

    /// The first value of `name`, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }

    public func headers(named name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap(\.last)
    }

    public var body: Data? { body_base64.flatMap { Data(base64Encoded: $0) } }
}
