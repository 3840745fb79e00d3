import Crypto
import Foundation
import URLLoading

/// One attempt of a download or data job through the engine (issue 3, "Jobs and workers").
///
/// The body goes to a temporary file beside `destination` and is renamed into place only when the
/// attempt succeeded: a 2xx response and, when one was given, a matching SHA-256. Anything else leaves
/// no file and is classified for the retry policy.
public struct JobAttempt: Sendable {
    public let session: Session

    public init(session: Session) {
        self.session = session
    }

    /// What a finished download yields.
    public struct Result: Sendable, Equatable, Codable {
        public var size: Int64
        public var sha256: String
        public var contentType: String?
    }

    public enum Outcome: Sendable, Equatable {
        case succeeded(Result, TransferResponse)
        /// `code` and `message` go to the job's error; `failure` decides about retrying.
        case failed(code: String, message: String, failure: RetryPolicy.AttemptFailure?, response: TransferResponse?)
    }

    public func download(
        _ request: TransferRequest, to destination: URL, expectedSHA256: String? = nil,
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }
    ) async -> Outcome {
        let task: DownloadTask
        do {
            task = try session.downloadTask(with: request)
        } catch {
            return .failed(code: error.code.rawValue, message: error.message, failure: .transfer(error.code), response: nil)
        }
        task.temporaryDirectory = destination.deletingLastPathComponent()
        let events = task.events
        var placed: Swift.Result<Result, JobFailure>?
        await withTaskCancellationHandler {
            task.resume()
            for await event in events {
                switch event {
                case .progress(let value): progress(value)
                case .downloadFinished(let file):
                    // The engine deletes `file` once the next event is asked for: judge and place it now.
                    if let response = task.response, response.isSuccess {
                        placed = Self.place(file, at: destination, expectedSHA256: expectedSHA256, contentType: response.mimeType)
                    }
                default: break
                }
            }
        } onCancel: {
            task.cancel()
        }

        if let error = task.error {
            return .failed(code: error.code.rawValue, message: error.message, failure: .transfer(error.code), response: task.response)
        }
        guard let response = task.response else {
            return .failed(code: "bad_server_response", message: "the transfer ended without a response", failure: .transfer(.badServerResponse), response: nil)
        }
        if let status = response.statusCode, !response.isSuccess {
            return .failed(
                code: "http_error", message: "the server answered \(status)",
                failure: .httpStatus(status, retryAfter: response.headers["Retry-After"]), response: response)
        }
        switch placed {
        case .success(let result)?: return .succeeded(result, response)
        case .failure(let failure)?: return .failed(code: failure.code, message: failure.message, failure: nil, response: response)
        case nil: return .failed(code: "bad_server_response", message: "the download produced no file", failure: nil, response: response)
        }
    }

    struct JobFailure: Error {
        let code: String
        let message: String
    }

    /// Hashes the finished file, checks it, and renames it over `destination`.
    static func place(_ file: URL, at destination: URL, expectedSHA256: String?, contentType: String?) -> Swift.Result<Result, JobFailure> {
        guard let (size, digest) = sha256(of: file) else {
            return .failure(JobFailure(code: "cannot_read_file", message: "the downloaded file could not be read back"))
        }
        if let expected = expectedSHA256?.lowercased(), expected != digest {
            return .failure(JobFailure(code: "checksum_mismatch", message: "the SHA-256 is \(digest), not the expected \(expected)"))
        }
        guard rename(file.path, destination.path) == 0 else {
            return .failure(JobFailure(code: "cannot_write_file", message: "cannot store the download: \(String(cString: strerror(errno)))"))
        }
        return .success(Result(size: size, sha256: digest, contentType: contentType))
    }

    /// SHA-256 of a file, read in 1 MiB pieces, with its size.
    static func sha256(of file: URL) -> (Int64, String)? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            // nil or empty: the end of the file.
            while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
                hasher.update(data: piece)
                size += Int64(piece.count)
            }
        } catch {
            return nil
        }
        return (size, hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }
}
