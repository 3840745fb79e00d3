import FerryModel
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
            let made = APIKey.generate()
            if try PrivateFile.createOnce(path, contents: made.text + "\n", directory: dataDirectory) {
                key = made
                logger.notice("created the admin API key", metadata: ["file": "\(path)"])
            } else {
                // Another ferryd made it a moment ago; an empty file is no key.
                let text = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                guard !text.isEmpty else { throw PrivateFile.CannotCreate(description: "\(path) exists but holds no key") }
                key = APIKey(text: text)
            }
        }
        try await keys.registerAdminKey(key, label: "admin.key")
        logger.info("admin API key is in the key file", metadata: ["file": "\(path)"])
    }
}
