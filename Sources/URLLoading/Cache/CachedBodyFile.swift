#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Moves cached bodies between files without holding them in memory: a cache stores a download's
/// body by linking or copying its file, and a hit is read back in chunks of `chunkSize`.
public enum CachedBodyFile {
    /// The most bytes of a file body in memory at once, when copying or serving it.
    public static let chunkSize = 256 << 10

    /// Makes `destination` (which must not exist) hold `body`, complete or not at all.
    ///
    /// `linking`: a file body becomes a hard link to its file where the file system allows, which
    /// costs no I/O. Only for callers that never change a finished file in place (the gateway's job
    /// files are replaced, never rewritten); otherwise the bytes are copied in the kernel.
    public static func write(_ body: CachedResponse.Body, to destination: URL, linking: Bool) throws {
        switch body {
        case .data(let data):
            try data.write(to: destination, options: .atomic)
        case .file(let source, let length):
            if linking, link(source.path, destination.path) == 0 {
                return
            }
            let partial = destination.path + ".partial-\(UUID.random().uuidString)"
            do {
                try copy(source.path, to: partial, length: length)
                guard rename(partial, destination.path) == 0 else { throw posixError("cannot rename \(partial)") }
            } catch {
                unlink(partial)
                throw error
            }
        }
    }

    /// Makes a new private file at `destination` of the given pieces of bodies, in order, each copied
    /// in chunks of `chunkSize` (never whole in memory); on failure nothing is left there.
    static func concatenate(_ pieces: [(body: CachedResponse.Body, bytes: ClosedRange<Int64>)], to destination: URL) throws {
        let output = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw posixError("cannot create \(destination.path)") }
        var closed = false
        defer { if !closed { close(output) } }
        do {
            for (body, bytes) in pieces {
                switch body {
                case .data(let data):
                    try data[Int(bytes.lowerBound)...Int(bytes.upperBound)].withUnsafeBytes { try writeAll($0, to: output, source: "a cached body") }
                case .file(let source, _):
                    let input = open(source.path, O_RDONLY | O_CLOEXEC)
                    guard input >= 0 else { throw posixError("cannot open \(source.path)") }
                    defer { close(input) }
                    guard lseek(input, off_t(bytes.lowerBound), SEEK_SET) >= 0 else { throw posixError("cannot seek in \(source.path)") }
                    try copyByReading(input, output, remaining: Int64(bytes.count), source: source.path)
                }
            }
            closed = true
            guard close(output) == 0 else { throw posixError("cannot write \(destination.path)") }
        } catch {
            unlink(destination.path)
            throw error
        }
    }

    /// Copies the first `length` bytes of `source` into a new private file at `destination`:
    /// `sendfile(2)` (in the kernel, no buffer here) where it takes files, a bounded read/write loop
    /// otherwise.
    private static func copy(_ source: String, to destination: String, length: Int64) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw posixError("cannot open \(source)") }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw posixError("cannot create \(destination)") }
        defer { close(output) }
        var remaining = length
        while remaining > 0 {
            let copied = sendfile(output, input, nil, Int(min(remaining, 1 << 30)))
            if copied > 0 {
                remaining -= Int64(copied)
                continue
            }
            if copied == 0 { throw posixError("\(source) is shorter than \(length) bytes") }
            if errno == EINTR { continue }
            // Not offered for these files: copy by hand.
            guard [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP].contains(errno) else { throw posixError("cannot copy \(source)") }
            try copyByReading(input, output, remaining: remaining, source: source)
            return
        }
    }

    private static func copyByReading(_ input: Int32, _ output: Int32, remaining: Int64, source: String) throws {
        var remaining = remaining
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while remaining > 0 {
            let count = read(input, buffer.baseAddress, Int(min(Int64(chunkSize), remaining)))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw posixError("cannot read \(source)") }
            try writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<count]), to: output, source: source)
            remaining -= Int64(count)
        }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to output: Int32, source: String) throws {
        var written = 0
        while written < bytes.count {
            let step = Glibc.write(output, bytes.baseAddress! + written, bytes.count - written)
            if step < 0, errno == EINTR { continue }
            guard step > 0 else { throw posixError("cannot write the cache's copy of \(source)") }
            written += step
        }
    }

    private static func posixError(_ what: String) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(errno)))"])
    }
}
