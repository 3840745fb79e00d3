import Foundation

/// A task whose response body goes to memory (TT-02): collected whole, or streamed piece by piece
/// with back-pressure (the transfer pauses while the consumer is behind).
public class DataTask: SessionTask, @unchecked Sendable {
    enum BodyDelivery: Sendable {
        /// Kept in memory and returned on completion.
        case collect
        /// Delivered as `.data` events as it arrives.
        case stream
    }

    let bodyDelivery: BodyDelivery
    private let collectedBody = Locked<Data?>(nil)

    init(session: Session, identifier: Int, request: TransferRequest, kind: Kind = .data, bodyDelivery: BodyDelivery) {
        self.bodyDelivery = bodyDelivery
        super.init(session: session, identifier: identifier, request: request, kind: kind)
    }

    /// Waits for completion and returns the body and the response. HTTP error statuses are responses,
    /// not errors (ER-01): check `response.statusCode`. For streamed tasks the body is empty.
    public func value() async throws(TransferError) -> (Data, TransferResponse) {
        if let error = await waitUntilCompleted() { throw error }
        guard let response else {
            throw TransferError(.badServerResponse, "the transfer ended without a response", failingURL: originalRequest.url)
        }
        return (collectedBody.withLock { $0 } ?? Data(), response)
    }

    /// `value()` as a `Result`.
    public func result() async -> Result<(Data, TransferResponse), TransferError> {
        do {
            return .success(try await value())
        } catch {
            return .failure(error)
        }
    }

    override var transferRole: TransferRole { .data(self, sending: nil) }

    func storeCollectedBody(_ body: Data) {
        collectedBody.withLock { $0 = body }
    }
}

/// A data task that sends a body from memory, a file or a stream (TT-05, UP-01).
public final class UploadTask: DataTask, @unchecked Sendable {
    public let body: UploadBody

    init(session: Session, identifier: Int, request: TransferRequest, body: UploadBody, bodyDelivery: BodyDelivery) {
        self.body = body
        super.init(session: session, identifier: identifier, request: request, kind: .upload, bodyDelivery: bodyDelivery)
    }

    override var transferRole: TransferRole { .data(self, sending: body) }
}
