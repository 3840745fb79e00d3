import Foundation
@testable import URLLoading

/// `ledger://<book>/<page>`: a custom protocol serving pages kept in memory, each with a version, that
/// uses the session's cache the way the seeds' URL protocol may: its cache key is the book and page
/// (the query is ignored, so `?a` and `?b` are one entry), and a stored entry still answers while its
/// `X-Version` is the page's current one.
///
/// - a book named `nokey…` has no cache key;
/// - the query `store=no` reports the response with the `.notAllowed` storage policy.
///
/// Tests use a book of their own; each instance notes what it did in `journal`, under its book.
final class LedgerProtocol: TransferProtocol {
    private static let pages = Locked<[String: (version: Int, body: Data)]>([:])
    private static let journal = Locked<[(book: String, event: String)]>([])

    static func write(_ body: String, version: Int, book: String, page: String) {
        pages.withLock { $0["\(book)/\(page)"] = (version, Data(body.utf8)) }
    }

    static func events(of book: String) -> [String] {
        journal.withLock { $0.filter { $0.book == book }.map(\.event) }
    }

    static func url(book: String, page: String, query: String? = nil) -> URL {
        URL(string: "ledger://\(book)/\(page)" + (query.map { "?" + $0 } ?? ""))!
    }

    static func canInit(with request: TransferRequest) -> Bool {
        request.url.scheme == "ledger"
    }

    static func cacheKey(for request: TransferRequest) -> String? {
        guard let book = request.url.host, !book.hasPrefix("nokey") else { return nil }
        return "\(book)\(request.url.path)"
    }

    private let request: TransferRequest
    private let client: TransferProtocolClient

    init(request: TransferRequest, client: TransferProtocolClient) {
        self.request = request
        self.client = client
    }

    private var book: String { request.url.host ?? "" }

    private func note(_ event: String) {
        Self.journal.withLock { $0.append((book, event)) }
    }

    func startLoading() {
        note("start")
        let key = "\(book)\(request.url.path)"
        guard let page = Self.pages.withLock({ $0[key] }) else {
            client.didFail(with: TransferError(.fileDoesNotExist, "no page \(key)", failingURL: request.url))
            return
        }
        if let cached = client.cachedResponse {
            if cached.response.headers["X-Version"] == String(page.version) {
                note("cached valid")
                client.cachedResponseIsValid()
                return
            }
            note("cached stale")
        }
        let policy: CachedResponse.StoragePolicy = request.url.query == "store=no" ? .notAllowed : .allowed
        client.didReceive(
            TransferResponse(
                url: request.url, statusCode: 200,
                headers: ["X-Version": String(page.version), "Content-Length": String(page.body.count)],
                expectedContentLength: Int64(page.body.count)),
            cacheStoragePolicy: policy)
        Task {
            await client.didLoad(page.body)
            note("loaded")
            client.didFinishLoading()
        }
    }

    func stopLoading() {
        note("stop")
    }
}
