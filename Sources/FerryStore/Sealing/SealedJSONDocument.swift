import Foundation

/// A stored JSON document edited as `JSONSerialization` objects: only where a value is sealed into
/// it, so the model types (which other code changes) need not know the stored form.
enum SealedJSONDocument {
    struct NotAnObject: Error, CustomStringConvertible {
        var description: String { "a stored document that should be a JSON object is not" }
    }

    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { throw NotAnObject() }
        return object
    }

    static func text(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    /// A quick test before parsing: a document with nothing sealed in it cannot contain this key.
    static func mayHoldSealedValues(_ text: String) -> Bool {
        text.contains("\"sealed\"") || text.contains("\"proxy_sealed\"")
    }
}
