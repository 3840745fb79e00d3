import Foundation
import Logging

/// The admin key at start: `FERRY_ADMIN_KEY` when set; otherwise the key in `<data dir>/admin.key`,
/// made (mode 0600) on first start. Either way only its hash goes to the database, so every ferryd
/// on the database accepts it.
public enum AdminKeyBootstrap {
    public static func prepare(configured: Secret?, dataDirectory: String, keys: KeyStore, logger: Logger) async throws {
        let key: APIKey
        if let configured {
            key = APIKey(text: configured.revealed)
            try await keys.registerAdminKey(key, label: "FERRY_ADMIN_KEY")
            return
        }
        let path = "\(dataDirectory)/admin.key"
        if let text = try? String(contentsOfFile: path, encoding: .utf8), !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            key = APIKey(text: text.trimmingCharacters(in: .whitespacesAndNewlines))
        } else {
            key = APIKey.generate()
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw AdminKeyError(message: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
            let line = Array((key.text + "\n").utf8)
            let written = write(descriptor, line, line.count)
            close(descriptor)
            guard written == line.count else { throw AdminKeyError(message: "cannot write \(path)") }
            logger.notice("created the admin API key", metadata: ["file": "\(path)"])
        }
        try await keys.registerAdminKey(key, label: "admin.key")
        logger.info("admin API key is in the key file", metadata: ["file": "\(path)"])
    }

    struct AdminKeyError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
