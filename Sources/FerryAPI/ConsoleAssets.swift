import Crypto
import Foundation
import Hummingbird

/// The operator console's files (`Embedded/console/`), compiled into ferryd by the EmbedFiles plugin,
/// each with the content type and the entity tag it is served with.
struct ConsoleAssets: Sendable {
    struct Asset: Sendable {
        let bytes: ByteBuffer
        let contentType: String
        /// A strong tag of the bytes: a browser revalidates each asset and gets a 304 while it is unchanged.
        let eTag: String
    }

    /// By file name ("app.js"); the console has no subfolders.
    let assets: [String: Asset]

    static let embedded = ConsoleAssets(files: EmbeddedFiles.all, folder: "console/")

    init(files: [String: [UInt8]], folder: String) {
        var assets: [String: Asset] = [:]
        for (path, bytes) in files where path.hasPrefix(folder) {
            let name = String(path.dropFirst(folder.count))
            let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
            assets[name] = Asset(
                bytes: ByteBuffer(bytes: bytes), contentType: Self.contentType(of: name), eTag: "\"\(digest.prefix(32))\"")
        }
        self.assets = assets
    }

    /// Only the kinds the console ships; anything else is served as bytes, never guessed at (`nosniff`).
    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
