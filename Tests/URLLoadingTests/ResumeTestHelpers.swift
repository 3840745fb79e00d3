import Crypto
import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Helpers for the resume tests.
enum Resume {
    struct Resumption: Equatable, CustomStringConvertible {
        var offset: Int64
        var expectedTotal: Int64?
        var description: String { "resumed(\(offset), \(expectedTotal.map(String.init) ?? "nil"))" }
    }

    /// What a download task's events showed.
    struct Outcome {
        var resumptions: [Resumption] = []
        var response: TransferResponse?
        /// The handed-over file and its bytes, read while it was valid (DL-02).
        var location: URL?
        var contents: Data?
        var error: TransferError?
    }

    /// Runs `task` to completion through its events.
    static func run(_ task: DownloadTask) async -> Outcome {
        var outcome = Outcome()
        let events = task.events
        task.resume()
        for await event in events {
            switch event {
            case .response(let response): outcome.response = response
            case .resumed(let offset, let total): outcome.resumptions.append(Resumption(offset: offset, expectedTotal: total))
            case .downloadFinished(let location):
                outcome.location = location
                outcome.contents = try? Data(contentsOf: location)
            case .completed(let error): outcome.error = error
            default: break
            }
        }
        return outcome
    }

    /// A download of `url` writing into `directory`, once it received exactly `offset` bytes (where
    /// `/resumable`'s `stall_at` holds it).
    static func stalledDownload(
        _ session: Session, _ url: String, in directory: TemporaryDirectory, at offset: Int64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> DownloadTask {
        let task = try session.downloadTask(with: Fixture.request(url))
        task.temporaryDirectory = directory.url
        task.resume()
        // Generous: with the whole suite running in parallel on two cores, the first bytes can take long.
        try await Fixture.eventually(timeout: .seconds(90), "\(offset) bytes received", sourceLocation: sourceLocation) {
            task.progress.bytesReceived == offset
        }
        return task
    }

    /// SHA-256 as lower-case hex, by swift-crypto: not the engine's own hasher.
    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
