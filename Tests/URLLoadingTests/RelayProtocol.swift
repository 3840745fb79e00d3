import Foundation
@testable import URLLoading

/// Takes over http(s) (PR-04): sends each request on through a session of its own, marked (PR-05) so
/// that the same protocol, listed in that session too, declines it the second time, and with a header
/// that shows the origin who relayed it.
final class RelayProtocol: TransferProtocol {
    static let relayedKey = "ferry.tests.relayed"

    static func canInit(with request: TransferRequest) -> Bool {
        let scheme = request.url.scheme?.lowercased()
        return (scheme == "http" || scheme == "https") && property(forKey: relayedKey, in: request) == nil
    }

    private let request: TransferRequest
    private let client: TransferProtocolClient
    private let relaying = Locked<Task<Void, Never>?>(nil)

    init(request: TransferRequest, client: TransferProtocolClient) {
        self.request = request
        self.client = client
    }

    func startLoading() {
        var forwarded = request
        Self.setProperty("yes", forKey: Self.relayedKey, in: &forwarded)
        forwarded.headers["X-Relayed-By"] = "RelayProtocol"
        let (client, relayed) = (client, forwarded)
        relaying.withLock {
            $0 = Task {
                do {
                    var configuration = SessionConfiguration.ephemeral
                    configuration.protocolClasses = [RelayProtocol.self]
                    let session = try Session(configuration: configuration)
                    defer { session.finishTasksAndInvalidate() }
                    let (data, response) = try await session.data(for: relayed)
                    client.didReceive(response)
                    await client.didLoad(data)
                    client.didFinishLoading()
                } catch let error as TransferError {
                    client.didFail(with: error)
                } catch {
                    client.didFail(with: TransferError(.unknown, "\(error)"))
                }
            }
        }
    }

    func stopLoading() {
        relaying.withLock { $0?.cancel() }
    }
}
