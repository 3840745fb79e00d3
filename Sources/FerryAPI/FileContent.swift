import FerryModel
import Foundation
import Hummingbird

/// Serves a job's content file, whole or one byte range (RFC 9110 §14), streamed from disk.
enum FileContent {
    static func response(
        path: String, result: JobRecord.StoredResult, request: Request, context: GatewayRequestContext
    ) async throws -> Response {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Problem(.gone, code: "content_missing", "the job's content file is gone") }
        let size = Int64(info.st_size)
        var headers: HTTPFields = [
            .contentType: result.contentType ?? "application/octet-stream",
            .acceptRanges: "bytes",
            .eTag: "\"\(result.sha256)\"",
        ]
        let fileIO = FileIO()
        var range: ClosedRange<Int64>?
        if let header = request.headers[.range], request.headers[.ifRange].map({ $0 == "\"\(result.sha256)\"" }) ?? true {
            switch ByteRange.parse(header, size: size) {
            case .whole: range = nil
            case .range(let value): range = value
            case .unsatisfiable:
                throw Problem(.rangeNotSatisfiable, code: "range_not_satisfiable", "the range lies outside the \(size) bytes of content",
                              headers: [.contentRange: "bytes */\(size)"])
            }
        }
        guard let range else {
            headers[.contentLength] = String(size)
            let body = size == 0 ? ResponseBody() : try await fileIO.loadFile(path: path, context: context)
            return Response(status: .ok, headers: headers, body: body)
        }
        headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        headers[.contentLength] = String(range.upperBound - range.lowerBound + 1)
        let body = try await fileIO.loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
        return Response(status: .partialContent, headers: headers, body: body)
    }
}

/// One `Range: bytes=...` value against a known size.
enum ByteRange: Equatable {
    /// No usable single range (absent, malformed, or several): send everything.
    case whole
    case range(ClosedRange<Int64>)
    case unsatisfiable

    static func parse(_ header: String, size: Int64) -> ByteRange {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes="), !trimmed.contains(",") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0].trimmingCharacters(in: .whitespaces)
        let last = parts[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // A suffix: the last n bytes.
            guard let count = Int64(last), count >= 0 else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .range(max(0, size - count)...(size - 1))
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        let end: Int64
        if last.isEmpty { end = size - 1 } else {
            guard let value = Int64(last), value >= start else { return .whole }
            end = min(value, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .range(start...end)
    }
}
