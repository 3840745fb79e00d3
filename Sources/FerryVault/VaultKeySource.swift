import FerryModel
import Foundation
import Logging

/// Where the vault's keys come from, as configured: `FERRY_VAULT_KEY` (base64 keys separated by
/// commas, newest first), else `FERRY_VAULT_KEY_FILE` (one base64 key per line, newest first), else
/// `<data dir>/vault.key`, made with one random key (mode 0600) on first start. Several ferryd on
/// one database must be given the same keys: the made file is only right for a single ferryd.
public enum VaultKeySource: Sendable, Equatable {
    case keys([Secret])
    case file(String)
    case defaultFile(dataDirectory: String)

    public static let defaultFileName = "vault.key"

    public func keyring(logger: Logger) throws -> VaultKeyring {
        switch self {
        case .keys(let texts):
            return try VaultKeyring(keys: texts.map { try VaultKey(base64: $0.revealed) })
        case .file(let path):
            return try Self.readKeyFile(path)
        case .defaultFile(let dataDirectory):
            let path = "\(dataDirectory)/\(Self.defaultFileName)"
            if !FileManager.default.fileExists(atPath: path),
               try PrivateFile.createOnce(path, contents: VaultKey.generateText() + "\n", directory: dataDirectory) {
                logger.notice("created a vault key; give every ferryd on this database the same key", metadata: ["file": "\(path)"])
            }
            return try Self.readKeyFile(path)
        }
    }

    package static func readKeyFile(_ path: String) throws -> VaultKeyring {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw VaultError.keyFile("cannot read the vault key file \(path)")
        }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        do {
            return try VaultKeyring(keys: try lines.map { try VaultKey(base64: $0) })
        } catch let error as VaultError {
            throw VaultError.keyFile("\(path): \(error)")
        }
    }
}
