import Foundation
import URLLoading

/// `-C -`: continues a partial output file from its size, with the checks curl makes.
///
/// There is no resume data for a file some earlier run left behind (no validators to send in
/// `If-Range`), so this is curl's plain `Range: bytes=SIZE-` request:
/// - 206 starting at SIZE: the body is appended to the file as it arrives.
/// - 416: nothing lies beyond SIZE; the file is taken as complete, as curl does.
/// - 200 whose length is SIZE: the file already is the whole body ("already downloaded").
/// - any other 200 (the server ignored the range): fails, the file untouched, with curl's
///   "HTTP server doesn't seem to support byte ranges. Cannot resume."
/// - an error status fails as it does without -C.
///
/// For ftp(s) the offset is sent as REST (curl's resume offset): the server's file is checked
/// against it first (SIZE), so a file no longer than the partial one fails with curl's "Offset ...
/// was beyond file size" and one of just that size is already whole; otherwise the rest is appended.
///
/// A missing or empty file is an ordinary download.
struct ContinuedFileDownload: Sendable {
    let session: Session
    let createdFileMode: mode_t

    func run(_ request: TransferRequest, to destination: URL, reporter: TransferReporter) async -> TransferOutcome {
        let attributes = try? FileManager.default.attributesOfItem(atPath: destination.path)
        let offset = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        guard offset > 0 else {
            return await FileDownload(session: session, createdFileMode: createdFileMode)
                .run(request, to: destination, reporter: reporter)
        }
        var ranged = request
        ranged.headers["Range"] = "bytes=\(offset)-"
        reporter.starting(ranged)
        let body: ResponseBody
        let response: TransferResponse
        do {
            (body, response) = try await session.bytes(for: ranged)
        } catch {
            return .failed(error)
        }
        reporter.received(response)
        switch response.statusCode {
        case 416:
            return .succeeded
        case 206:
            guard Self.rangeStart(response.headers["Content-Range"]) == offset else {
                return .failed(TransferError(
                    .badServerResponse, "the server sent a different range than the \(offset) bytes onwards asked for",
                    failingURL: request.url))
            }
        case let status? where (200..<300).contains(status):
            if response.expectedContentLength == offset { return .succeeded }
            return .failed(TransferError(
                .badServerResponse, "HTTP server doesn't seem to support byte ranges. Cannot resume.", failingURL: request.url))
        case let status?:
            return .httpError(statusCode: status)
        case nil where ["ftp", "ftps"].contains(request.url.scheme?.lowercased() ?? ""):
            // The body is the rest of the file, from the offset on (nothing when it was whole).
            break
        case nil:
            return .failed(TransferError(.unsupportedURL, "-C - continues http(s) and ftp(s) downloads only", failingURL: request.url))
        }
        return await append(body, of: response, at: offset, to: destination, url: request.url, reporter: reporter)
    }

    private func append(_ body: ResponseBody, of response: TransferResponse, at offset: Int64, to destination: URL, url: URL,
                        reporter: TransferReporter) async -> TransferOutcome {
        let descriptor = open(destination.path, O_WRONLY | O_APPEND)
        guard descriptor >= 0 else {
            return .failed(TransferError(
                .cannotOpenFile, "cannot open \(destination.path): \(String(cString: strerror(errno)))", failingURL: url))
        }
        defer { close(descriptor) }
        var progress = TransferProgress()
        progress.bytesReceived = offset
        progress.totalBytesExpectedToReceive = response.expectedContentLength.map { $0 + offset }
        return await DescriptorBodyCopy.copy(
            body, to: descriptor, named: destination.path, progress: progress, url: url, reporter: reporter)
    }

    /// The first byte of `bytes FIRST-LAST/TOTAL`.
    static func rangeStart(_ contentRange: String?) -> Int64? {
        guard let contentRange, contentRange.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = contentRange.dropFirst("bytes ".count)
        return spec.split(separator: "-").first.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}
