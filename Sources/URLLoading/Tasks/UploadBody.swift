import Foundation

/// Where an upload's body comes from (UP-01).
public enum UploadBody: Sendable {
    /// In memory; Content-Length is computed (UP-02, UP-08).
    case data(Data)
    /// A file; Content-Length is computed and Content-Type guessed from the extension unless the
    /// request sets it (UP-03).
    case file(URL)
    /// A stream; the request should carry Content-Length (else HTTP/1.1 sends it chunked) and
    /// Content-Type (UP-04). A 307/308 redirect asks the delegate for a new stream (UP-05).
    case stream(Stream)

    /// A one-shot sequence of body pieces.
    public struct Stream: Sendable {
        let makeIterator: @Sendable () -> AsyncThrowingStream<Data, any Error>

        public init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Data {
            makeIterator = {
                AsyncThrowingStream { continuation in
                    let pump = Task {
                        do {
                            for try await piece in sequence { continuation.yield(piece) }
                            continuation.finish()
                        } catch {
                            continuation.finish(throwing: error)
                        }
                    }
                    continuation.onTermination = { _ in pump.cancel() }
                }
            }
        }
    }
}

/// Content types for common file extensions, for upload tasks from files (UP-03).
enum MediaTypes {
    static func forFile(_ url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "txt", "text", "log": "text/plain"
        case "html", "htm": "text/html"
        case "css": "text/css"
        case "csv": "text/csv"
        case "js": "text/javascript"
        case "json": "application/json"
        case "xml": "application/xml"
        case "pdf": "application/pdf"
        case "zip": "application/zip"
        case "gz", "tgz": "application/gzip"
        case "tar": "application/x-tar"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "svg": "image/svg+xml"
        case "mp4": "video/mp4"
        case "mp3": "audio/mpeg"
        case "wasm": "application/wasm"
        default: "application/octet-stream"
        }
    }
}
