import FerryModel
import Foundation
import Synchronization

/// Decodes each distinct JSON text once across the rows of one statement.
///
/// The jobs of a claim, a batch or a page mostly share their policies, their session's settings and
/// their (empty) decision answers, and `JSONDecoder` costs tens of microseconds a call however short
/// the text: in the P3 bench these repeated decodes were about half of a claim's decoding. A
/// statement makes one of these for its rows, so it holds at most one value per row and goes with
/// the statement; a text seen once costs one dictionary lookup more.
package final class RepeatedJSONTexts: Sendable {
    private struct Key: Hashable {
        var type: ObjectIdentifier
        /// What else the value depends on, such as the session whose sealed values are opened.
        var context: String
        var text: String
    }

    private let decoded = Mutex<[Key: any Sendable]>([:])

    package init() {}

    /// `text` decoded as `type`, by `decode` the first time only.
    package func value<Value: Sendable>(
        _ type: Value.Type, json text: String, context: String = "", decode: (String) throws -> Value
    ) throws -> Value {
        let key = Key(type: ObjectIdentifier(type), context: context, text: text)
        if let known = decoded.withLock({ $0[key] }) as? Value { return known }
        let value = try decode(text)
        decoded.withLock { $0[key] = value }
        return value
    }

    /// `text` decoded as `type` with `JobSpecification.decode`.
    package func value<Value: Decodable & Sendable>(_ type: Value.Type, json text: String) throws -> Value {
        try value(type, json: text) { try JobSpecification.decode(type, json: $0) }
    }
}
