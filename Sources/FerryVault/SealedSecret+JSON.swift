import Foundation

/// How a sealed value sits inside a JSON document of its row (a job's request, its resume data, a
/// session's configuration): `{"key_id": "…", "box": "<base64 of nonce | ciphertext | tag>"}`.
/// Nothing of the plaintext, and the key only by its id.
extension SealedSecret: Codable {
    private enum CodingKeys: String, CodingKey {
        case keyID = "key_id"
        case box
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        keyID = try container.decode(String.self, forKey: .keyID)
        guard let combined = Data(base64Encoded: try container.decode(String.self, forKey: .box)) else {
            throw VaultError.cannotOpen
        }
        self.combined = combined
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(keyID, forKey: .keyID)
        try container.encode(combined.base64EncodedString(), forKey: .box)
    }

    /// The JSON object form, for documents edited as `JSONSerialization` objects.
    public var jsonObject: [String: String] {
        ["key_id": keyID, "box": combined.base64EncodedString()]
    }

    /// The value `jsonObject` made; nil for anything else.
    public init?(jsonObject: Any?) {
        guard let object = jsonObject as? [String: Any], let keyID = object["key_id"] as? String,
              let box = object["box"] as? String, let combined = Data(base64Encoded: box)
        else { return nil }
        self.init(keyID: keyID, combined: combined)
    }
}
