import Foundation

/// Writes whole buffers to a file descriptor, retrying short writes and EINTR.
///
/// Plain `write(2)` rather than `FileHandle`, so a closed pipe (`ferry get URL | head`) surfaces as an
/// EPIPE error we can report instead of an exception or a crash.
enum FileDescriptorOutput {
    /// Writes all of `bytes`; returns the errno of the first failure, nil on success.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    static func writeAll(_ data: Data, to descriptor: Int32) -> Int32? {
        data.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        var text = text
        return text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
    }
}
