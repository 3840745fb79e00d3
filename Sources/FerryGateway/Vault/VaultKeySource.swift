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
            if !FileManager.default.fileExists(atPath: path) {
                try Self.createKeyFile(path, dataDirectory: dataDirectory)
                logger.notice("created a vault key; give every ferryd on this database the same key", metadata: ["file": "\(path)"])
            }
            return try Self.readKeyFile(path)
        }
    }

    static func readKeyFile(_ path: String) throws -> VaultKeyring {
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

    /// Written to a private temporary file, then linked into place: a ferryd starting at the same
    /// moment either makes the file or finds it whole, never half written.
    private static func createKeyFile(_ path: String, dataDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let temporary = "\(path).\(UUID().uuidString).tmp"
        defer { unlink(temporary) }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw VaultError.keyFile("cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        let line = Array((VaultKey.generateText() + "\n").utf8)
        let written = write(descriptor, line, line.count)
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == line.count, synced == 0 else { throw VaultError.keyFile("cannot write \(temporary)") }
        guard link(temporary, path) == 0 || errno == EEXIST else {
            throw VaultError.keyFile("cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }
}
