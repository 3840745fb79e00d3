/// What a `Range` header (with its `If-Range`) asks of a resource of known length.
///
/// Only a single range is honoured; a multi-range or malformed header is ignored and the
/// whole resource is sent, which RFC 9110 allows.
enum ByteRangeRequest: Equatable {
    case wholeResource
    /// Inclusive bounds, both within the resource.
    case partial(first: Int, last: Int)
    case unsatisfiable

    init(rangeHeader: String?, ifRange: String?, validators: [String], resourceLength: Int) {
        guard let rangeHeader else {
            self = .wholeResource
            return
        }
        // If-Range names the version the client already has; if that is no longer current,
        // the partial content would not fit its copy, so it gets everything.
        if let ifRange, !validators.contains(ifRange.trimmingSpaces) {
            self = .wholeResource
            return
        }
        let spec = rangeHeader.trimmingSpaces
        guard spec.lowercased().hasPrefix("bytes="), !spec.contains(",") else {
            self = .wholeResource
            return
        }
        let bounds = spec.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else {
            self = .wholeResource
            return
        }
        let firstText = bounds[0].trimmingSpaces
        let lastText = bounds[1].trimmingSpaces

        if firstText.isEmpty {
            // "bytes=-N": the last N bytes.
            guard let suffixLength = Int(lastText), suffixLength >= 0 else {
                self = .wholeResource
                return
            }
            guard suffixLength > 0, resourceLength > 0 else {
                self = .unsatisfiable
                return
            }
            self = .partial(first: max(0, resourceLength - suffixLength), last: resourceLength - 1)
            return
        }
        guard let first = Int(firstText), first >= 0 else {
            self = .wholeResource
            return
        }
        var last = resourceLength - 1
        if !lastText.isEmpty {
            guard let requestedLast = Int(lastText), requestedLast >= first else {
                self = .wholeResource
                return
            }
            last = min(requestedLast, resourceLength - 1)
        }
        self = first < resourceLength ? .partial(first: first, last: last) : .unsatisfiable
    }
}
