import Foundation

/// Feeds a request body to curl's read callback, from memory, a file or a stream (UP-01).
final class RequestBodyReader {
    private enum Source {
        case data(Data, offset: Int)
        case file(descriptor: Int32)
        case stream(UploadStreamPump)
    }

    private var source: Source
    /// The body's size, when known; nil sends it chunked (HTTP/1.1).
    let length: Int64?
    /// Content-Type to add when the request has none (file uploads, UP-03).
    let impliedContentType: String?

    private init(source: Source, length: Int64?, impliedContentType: String? = nil) {
        self.source = source
        self.length = length
        self.impliedContentType = impliedContentType
    }

    static func stream(_ pump: UploadStreamPump, length: Int64?) -> RequestBodyReader {
        RequestBodyReader(source: .stream(pump), length: length)
    }

    /// The body a task sends: `sent` (an upload task's body, or the body of a download that sends one
    /// first) when there is one, else the request's own `body` (TT-09).
    static func make(sending sent: UploadBody?, request: TransferRequest) throws(TransferError) -> RequestBodyReader? {
        if let sent {
            return try make(from: sent, request: request)
        }
        guard let data = request.body else { return nil }
        return RequestBodyReader(source: .data(data, offset: 0), length: Int64(data.count))
    }

    private static func make(from body: UploadBody, request: TransferRequest) throws(TransferError) -> RequestBodyReader {
        switch body {
        case .data(let data):
            return RequestBodyReader(source: .data(data, offset: 0), length: Int64(data.count))
        case .file(let url):
            return try openFile(url)
        case .stream(let stream):
            let declared = request.headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            return RequestBodyReader(source: .stream(UploadStreamPump(stream: stream)), length: declared)
        }
    }

    private static func openFile(_ url: URL) throws(TransferError) -> RequestBodyReader {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code: TransferError.Code = errno == ENOENT ? .fileDoesNotExist : errno == EACCES ? .noPermissionsToReadFile : .cannotOpenFile
            throw TransferError(code, "cannot open the upload file \(url.path): \(String(cString: strerror(errno)))", failingURL: url)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Foundation.close(descriptor)
            throw TransferError(.fileIsDirectory, "the upload source \(url.path) is not a regular file", failingURL: url)
        }
        return RequestBodyReader(
            source: .file(descriptor: descriptor), length: Int64(info.st_size), impliedContentType: MediaTypes.forFile(url))
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, wake: @escaping @Sendable () -> Void) -> UploadStreamPump.ReadResult {
        switch source {
        case .data(let data, let offset):
            let count = min(buffer.count, data.count - offset)
            guard count > 0 else { return .end }
            data.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
            }
            source = .data(data, offset: offset + count)
            return .bytes(count)
        case .file(let descriptor):
            while true {
                let count = Foundation.read(descriptor, buffer.baseAddress, buffer.count)
                if count >= 0 { return count == 0 ? .end : .bytes(count) }
                if errno != EINTR { return .failed("reading the upload file failed: \(String(cString: strerror(errno)))") }
            }
        case .stream(let pump):
            return pump.read(into: buffer, wake: wake)
        }
    }

    /// Moves to `offset`, for curl's own rewinds (a retried request on a reused connection).
    func seek(to offset: Int64) -> Bool {
        switch source {
        case .data(let data, _):
            guard offset >= 0, offset <= Int64(data.count) else { return false }
            source = .data(data, offset: Int(offset))
            return true
        case .file(let descriptor):
            return lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset)
        case .stream:
            return false
        }
    }

    /// Starts over for a redirect that resends the body; false for streams, which need a new one.
    func rewind() -> Bool { seek(to: 0) }

    func close() {
        switch source {
        case .file(let descriptor): Foundation.close(descriptor)
        case .stream(let pump): pump.cancel()
        case .data: break
        }
        source = .data(Data(), offset: 0)
    }
}
