import Crypto
import Foundation

/// One migration file: its number, name, SQL and the SHA-256 of its bytes.
///
/// The checksum is over the file exactly as stored (not the parsed statements), so any edit of an
/// applied migration, even to a comment, is noticed: what ran against a database must be what the
/// repository says ran.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let fileName: String
    public let sql: String
    /// Lower-case hex SHA-256 of the file's bytes.
    public let checksum: String

    /// "0001_initial".
    public var identifier: String { MigrationFileName.identifier(version: version, name: name) }

    /// - Throws: `MigrationError.invalidFileName` unless `fileName` is `NNNN_name.sql`;
    ///   `.unreadableFile` unless the contents are UTF-8.
    public init(fileName: String, contents: Data, directory: String = ".") throws(MigrationError) {
        guard let (version, name) = MigrationFileName.parse(fileName) else {
            throw .invalidFileName(fileName: fileName, directory: directory)
        }
        guard let sql = String(data: contents, encoding: .utf8) else {
            throw .unreadableFile(path: "\(directory)/\(fileName)", reason: "it is not UTF-8 text")
        }
        self.version = version
        self.name = name
        self.fileName = fileName
        self.sql = sql
        self.checksum = SHA256.hash(data: contents).map { String(format: "%02x", $0) }.joined()
    }
}
