import Foundation
@testable import URLLoading

/// `memo:///<absolute path>`: a custom protocol serving the real file at that path (PR-04..PR-07).
///
/// - a file named `*.moved` holds a URL: the request is redirected there with a 301;
/// - a path through a directory named `locked` first asks for a credential: `reader`/`secret` reads
///   the file, any other answer gets a 401 with no body;
/// - the query `slow` waits 20 ms between pieces, so that a test can cancel midway.
///
/// Each instance notes in `journal` what the engine made it do, under the path it was asked for.
final class MemoProtocol: TransferProtocol {
    static let journal = Locked<[(path: String, event: String)]>([])
    static let lockedSpace = ProtectionSpace(host: "memo", port: 0, scheme: "memo", realm: "locked", authenticationMethod: .default)
    static let pieceSize = 16_384

    /// What happened to the instances asked for paths under `directory`, in order.
    static func events(under directory: URL) -> [String] {
        journal.withLock { $0.filter { $0.path.hasPrefix(directory.path) }.map(\.event) }
    }

    static func url(_ file: URL, slow: Bool = false) -> URL {
        URL(string: "memo://" + file.path + (slow ? "?slow" : ""))!
    }

    static func canInit(with request: TransferRequest) -> Bool {
        request.url.scheme?.lowercased() == "memo"
    }

    /// Without `.` segments and empty ones (PR-13).
    static func canonicalRequest(for request: TransferRequest) -> TransferRequest {
        let path = "/" + request.url.path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
        guard let url = URL(string: "memo://" + path + (request.url.query.map { "?" + $0 } ?? "")) else { return request }
        var canonical = request
        canonical.url = url
        return canonical
    }

    private let request: TransferRequest
    private let client: TransferProtocolClient
    private let loading = Locked<Task<Void, Never>?>(nil)
    private let answers: AsyncStream<ChallengeDisposition>
    private let answer: AsyncStream<ChallengeDisposition>.Continuation

    init(request: TransferRequest, client: TransferProtocolClient) {
        self.request = request
        self.client = client
        (answers, answer) = AsyncStream.makeStream(of: ChallengeDisposition.self)
    }

    func startLoading() {
        note("start \(request.url.path)")
        loading.withLock { $0 = Task { await self.load() } }
    }

    func stopLoading() {
        note("stop")
        loading.withLock { $0?.cancel() }
        answer.finish()
    }

    func challenge(_ challenge: AuthenticationChallenge, answeredWith disposition: ChallengeDisposition) {
        switch disposition {
        case .useCredential(let credential): note("answer credential \(credential.user ?? "?")")
        case .continueWithoutCredential: note("answer continue without credential")
        case .cancel: note("answer cancel")
        default: note("answer other")
        }
        answer.yield(disposition)
    }

    private func note(_ event: String) {
        Self.journal.withLock { $0.append((request.url.path, event)) }
    }

    private func load() async {
        let path = request.url.path
        if path.split(separator: "/").contains("locked") {
            guard await authenticated() else { return }
        }
        if path.hasSuffix(".moved") {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8), let target = URL(string: text) else {
                client.didFail(with: TransferError(.badServerResponse, "unreadable move", failingURL: request.url))
                return
            }
            client.wasRedirected(
                to: TransferRequest(url: target),
                redirectResponse: TransferResponse(url: request.url, statusCode: 301, headers: ["Location": text]))
            return
        }
        guard let file = FileHandle(forReadingAtPath: path),
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        else {
            client.didFail(with: TransferError(.fileDoesNotExist, "no file at \(path)", failingURL: request.url))
            return
        }
        defer { try? file.close() }
        client.didReceive(TransferResponse(
            url: request.url, statusCode: 200, headers: ["Content-Length": String(size)], expectedContentLength: Int64(size)))
        while !Task.isCancelled, let piece = try? file.read(upToCount: Self.pieceSize), !piece.isEmpty {
            await client.didLoad(piece)
            if request.url.query == "slow" { try? await Task.sleep(for: .milliseconds(20)) }
        }
        guard !Task.isCancelled else { return }
        note("finish")
        client.didFinishLoading()
    }

    /// Asks for a credential; false when the file is not to be read (a 401 was reported, or the hop stopped).
    private func authenticated() async -> Bool {
        client.didReceive(AuthenticationChallenge(protectionSpace: Self.lockedSpace))
        for await disposition in answers {
            if case .useCredential(let credential) = disposition, credential.kind == .password(user: "reader", password: "secret") {
                return true
            }
            client.didReceive(TransferResponse(url: request.url, statusCode: 401, expectedContentLength: 0))
            client.didFinishLoading()
            return false
        }
        return false
    }
}
