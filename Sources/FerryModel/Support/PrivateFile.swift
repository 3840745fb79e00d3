import Foundation

/// A file only its owner may read (mode 0600), made once: written to a private temporary file, then
/// linked into place, so a ferryd starting at the same moment either makes it or finds it whole,
/// never half written. Holds generated secrets (the admin key, the vault key).
package enum PrivateFile {
    package struct CannotCreate: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Creates `path` with `contents` unless it exists. True when this call created it.
    @discardableResult
    package static func createOnce(_ path: String, contents: String, directory: String) throws -> Bool {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let temporary = "\(path).\(UUID().uuidString).tmp"
        defer { unlink(temporary) }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CannotCreate(description: "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(contents.utf8)
        let written = write(descriptor, bytes, bytes.count)
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else { throw CannotCreate(description: "cannot write \(temporary)") }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            throw CannotCreate(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return true
    }
}
