import Foundation

/// A body Ferry has itself, written to the task's sink when its hop ends: bytes in memory (a data:
/// URL) or a cached entry's file, opened when the entry is chosen (so the cache may replace or evict
/// the file meanwhile) and read in chunks of `CachedBodyFile.chunkSize`, never whole.
///
/// Loop-confined, like the `TaskTransfer` that owns it.
final class LocalBody {
    private enum Source {
        case data(Data)
        case file(descriptor: Int32, length: Int64)
    }

    private let source: Source

    init(_ data: Data) {
        source = .data(data)
    }

    /// The body of a cached entry, or the bytes of `range` in it (a 206 the cache answers); nil when
    /// its file is gone (evicted since the lookup).
    init?(_ body: CachedResponse.Body, range: ClosedRange<Int64>? = nil) {
        switch body {
        case .data(let data):
            source = .data(range.map { data.subdata(in: Int($0.lowerBound)..<Int($0.upperBound) + 1) } ?? data)
        case .file(let url, let length):
            let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            if let range, lseek(descriptor, off_t(range.lowerBound), SEEK_SET) < 0 {
                close(descriptor)
                return nil
            }
            source = .file(descriptor: descriptor, length: range.map { $0.upperBound - $0.lowerBound + 1 } ?? length)
        }
    }

    deinit {
        if case .file(let descriptor, _) = source { close(descriptor) }
    }

    /// Hands the body to `consume` in order; a file shorter than its entry said fails.
    func write(to consume: (UnsafeRawBufferPointer) throws(TransferError) -> Void, failingURL: URL) throws(TransferError) {
        switch source {
        case .data(let data):
            let failure = data.withUnsafeBytes { bytes -> TransferError? in
                do throws(TransferError) {
                    try consume(bytes)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
        case .file(let descriptor, let length):
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: CachedBodyFile.chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            var remaining = length
            while remaining > 0 {
                let count = read(descriptor, buffer.baseAddress, Int(min(Int64(buffer.count), remaining)))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    throw TransferError(.resourceUnavailable, "the cached body ended \(remaining) bytes early",
                                        failingURL: failingURL)
                }
                try consume(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                remaining -= Int64(count)
            }
        }
    }
}
