import Foundation

/// What the response to a resumed download's request means for its partial file (DL-07, DL-09, DL-10).
///
/// A pure decision, so every case is testable without a server.
enum ResumeResponse: Equatable {
    /// 206 continuing exactly at the requested offset: append. `expectedTotal` is the whole body's
    /// length (Content-Range's, else offset + Content-Length), when known.
    case append(expectedTotal: Int64?)
    /// A 2xx with the whole body: the validator no longer matches, or the server ignores ranges.
    /// Write it from byte 0 over the partial file.
    case replace(expectedTotal: Int64?)
    /// 416, or a 206 that is not the requested continuation (another start, another entity):
    /// nothing in this response fits the partial file. Empty it and ask again without `Range`, from
    /// byte 0.
    case restartWithoutRange(reason: String)
    /// Anything else (404, 503, ...): not a body for this file. The response is the task's as usual;
    /// its body goes to a new file and the partial file is left as it was, for a later try.
    case unrelated

    /// - Parameters:
    ///   - requestedOffset: the offset of the `Range` sent; 0 when none was sent.
    ///   - validators: the resume data's validators, whose ETag (else Last-Modified) `If-Range` sent.
    ///     A 206 must carry that very validator: a server that ignores `If-Range` answers 206 with
    ///     bytes of a newer version, and appending them would splice two versions into one file.
    static func classify(
        statusCode: Int?, headers: HTTPHeaders, requestedOffset: Int64, validators: EntityValidators? = nil
    ) -> ResumeResponse {
        guard let statusCode, (200..<300).contains(statusCode) || statusCode == 416 else { return .unrelated }
        let encoded = headers["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false
        let length = encoded ? nil : headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        if requestedOffset == 0 {
            return statusCode == 416 ? .unrelated : .replace(expectedTotal: length)
        }
        switch statusCode {
        case 206:
            guard !encoded else { return .restartWithoutRange(reason: "the partial response is content-encoded") }
            guard let range = headers["Content-Range"].flatMap(ContentRange.init) else {
                return .restartWithoutRange(reason: "the 206 response has no single Content-Range")
            }
            guard range.first == requestedOffset else {
                return .restartWithoutRange(
                    reason: "the 206 response starts at byte \(range.first), not at the requested \(requestedOffset)")
            }
            if let mismatch = validators.flatMap({ Self.validatorMismatch(of: headers, against: $0) }) {
                return .restartWithoutRange(reason: mismatch)
            }
            return .append(expectedTotal: range.total ?? length.map { requestedOffset + $0 })
        case 416:
            return .restartWithoutRange(reason: "the server cannot serve bytes from \(requestedOffset) on (416)")
        default:
            return .replace(expectedTotal: length)
        }
    }

    /// Why a 206's headers do not show the entity the partial file holds, or nil when they do: the
    /// strong ETag must be the recorded one when there was one (RFC 9110 makes a 206 repeat the ETag
    /// a 200 would have), else the Last-Modified date must be the recorded one. A 206 without the
    /// validator proves nothing, and one more request from byte 0 costs less than a spliced file.
    static func validatorMismatch(of headers: HTTPHeaders, against validators: EntityValidators) -> String? {
        if let recorded = validators.entityTag?.trimmingCharacters(in: .whitespaces) {
            guard let sent = headers["ETag"]?.trimmingCharacters(in: .whitespaces) else {
                return "the 206 response has no ETag to match the recorded \(recorded)"
            }
            guard EntityValidators.isStrongEntityTag(sent), sent == recorded else {
                return "the 206 response is of entity \(sent), not the recorded \(recorded)"
            }
            return nil
        }
        if let recorded = validators.lastModified?.trimmingCharacters(in: .whitespaces) {
            guard let sent = headers["Last-Modified"]?.trimmingCharacters(in: .whitespaces) else {
                return "the 206 response has no Last-Modified to match the recorded \(recorded)"
            }
            guard sent == recorded else {
                return "the 206 response was last modified \(sent), not at the recorded \(recorded)"
            }
        }
        return nil
    }

    /// `Content-Range: bytes first-last/total` (total may be `*`).
    struct ContentRange: Equatable {
        var first: Int64
        var last: Int64
        var total: Int64?

        init?(_ text: String) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
            let spec = trimmed.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
            let rangeAndTotal = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard rangeAndTotal.count == 2 else { return nil }
            let bounds = rangeAndTotal[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, last >= first else {
                return nil
            }
            self.first = first
            self.last = last
            if rangeAndTotal[1] == "*" {
                total = nil
            } else {
                guard let total = Int64(rangeAndTotal[1]), total > last else { return nil }
                self.total = total
            }
        }
    }
}
