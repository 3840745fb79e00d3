import Foundation
@testable import URLLoading

/// Two protocols that both load `claim:` and `claim-global:` URLs, each answering with its own name:
/// which one a task reached shows the order loaders are asked in (PR-04, PR-08).
class Claimant: @unchecked Sendable {
    class var name: String { preconditionFailure("each claimant names itself") }

    class func canInit(with request: TransferRequest) -> Bool {
        ["claim", "claim-global"].contains(request.url.scheme?.lowercased() ?? "")
    }

    private let request: TransferRequest
    private let client: TransferProtocolClient

    required init(request: TransferRequest, client: TransferProtocolClient) {
        self.request = request
        self.client = client
    }

    func startLoading() {
        let (request, client, name) = (request, client, Self.name)
        Task {
            client.didReceive(TransferResponse(url: request.url, statusCode: 200))
            await client.didLoad(Data(name.utf8))
            client.didFinishLoading()
        }
    }

    func stopLoading() {}
}

final class FirstClaimant: Claimant, TransferProtocol, @unchecked Sendable {
    override class var name: String { "first" }
}

final class SecondClaimant: Claimant, TransferProtocol, @unchecked Sendable {
    override class var name: String { "second" }
}
