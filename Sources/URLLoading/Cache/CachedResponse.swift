import Foundation

/// A response and its body as the cache keeps them (CA-04): with custom `userInfo` (CA-15), a storage
/// policy (CA-10, CA-12), and the times the age calculation of RFC 9111 §4.2.3 needs.
public struct CachedResponse: Sendable, Equatable {
    public enum StoragePolicy: String, Sendable, Equatable, Codable {
        /// In memory and on disk.
        case allowed
        case allowedInMemoryOnly
        case notAllowed
    }

    /// Where the body is. A download's body is already a file, and a stored entry's body is the
    /// cache's file: neither is read into memory to be stored or served (a hit is copied from the
    /// file in bounded chunks).
    public enum Body: Sendable, Equatable {
        case data(Data)
        /// The bytes of this file, `length` of them. A cache that keeps the entry makes its own copy
        /// (or link): the file may be moved or removed after the call.
        case file(URL, length: Int64)

        public var length: Int64 {
            switch self {
            case .data(let data): Int64(data.count)
            case .file(_, let length): length
            }
        }
    }

    public var response: TransferResponse
    public var body: Body
    public var userInfo: [String: String]
    public var storagePolicy: StoragePolicy
    /// When the request that fetched the response was sent, and when the response arrived.
    public var requestDate: Date
    public var responseDate: Date
    /// The values the request had for each header the response's `Vary` names (absent ones left
    /// out), lower-case names: a later request must have the same to be served this entry.
    public var varyingRequestHeaders: [String: String]

    public init(
        response: TransferResponse, body: Body, userInfo: [String: String] = [:], storagePolicy: StoragePolicy = .allowed,
        requestDate: Date = Date(), responseDate: Date = Date(), varyingRequestHeaders: [String: String] = [:]
    ) {
        self.response = response
        self.body = body
        self.userInfo = userInfo
        self.storagePolicy = storagePolicy
        self.requestDate = requestDate
        self.responseDate = responseDate
        self.varyingRequestHeaders = varyingRequestHeaders
    }

    public init(
        response: TransferResponse, data: Data, userInfo: [String: String] = [:], storagePolicy: StoragePolicy = .allowed,
        requestDate: Date = Date(), responseDate: Date = Date(), varyingRequestHeaders: [String: String] = [:]
    ) {
        self.init(
            response: response, body: .data(data), userInfo: userInfo, storagePolicy: storagePolicy, requestDate: requestDate,
            responseDate: responseDate, varyingRequestHeaders: varyingRequestHeaders)
    }

    /// The body when it is in memory; nil when it is a file.
    public var data: Data? {
        if case .data(let data) = body { return data }
        return nil
    }

    /// Bytes it takes in a cache: the body plus a rough size of the head. Public so caches kept
    /// elsewhere (the gateway's per-tenant one) count entries as the engine's own caches do.
    public var cost: Int {
        Int(clamping: body.length) + response.headers.reduce(256) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}
