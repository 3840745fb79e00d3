import Crypto
import Foundation

/// A bearer key: shown once when made, stored only as its SHA-256.
///
/// 32 random bytes, base64url, behind a `ferry_` prefix so leaked keys are easy to grep for. Keys
/// carry that much entropy, so a plain SHA-256 (not a slow password hash) is what stores them safely.
public struct APIKey: Sendable, Equatable {
    public let text: String

    public init(text: String) {
        self.text = text
    }

    public static func generate() -> APIKey {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let encoded = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return APIKey(text: "ferry_" + encoded)
    }

    /// What the database stores and looks keys up by.
    public var hash: Data { Data(SHA256.hash(data: Data(text.utf8))) }
}
