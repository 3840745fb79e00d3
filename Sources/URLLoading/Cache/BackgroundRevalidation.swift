import Foundation

/// `stale-while-revalidate` (RFC 5861 §3): a stale entry was served, and the origin is asked again
/// behind the caller's back. The request goes through a session of its own with the caller's
/// configuration (so the refreshed entry lands in the same cache, through the same proxy and trust)
/// and no delegate (the caller's sees nothing of it); its body, if the entry changed, goes to a
/// temporary file the cache copies or links, never to memory.
enum BackgroundRevalidation {
    static func start(_ request: TransferRequest, configuration: SessionConfiguration) {
        guard let session = try? Session(configuration: configuration) else { return }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-revalidation-\(UUID().uuidString)")
        Task {
            _ = try? await session.download(for: request, to: file)
            try? FileManager.default.removeItem(at: file)
            session.finishTasksAndInvalidate()
        }
    }
}
