import FerryModel
import Foundation

/// Finds NUL (U+0000) in the strings of a JSON body: PostgreSQL's text and jsonb cannot hold it, so a
/// body that carries one is refused here, naming each field, instead of failing in the database.
///
/// JSON can only spell NUL as the escape `\u0000`, so the bytes are scanned for that first (an escape
/// is one whose backslash is not itself escaped); only a body that has one is parsed to name the fields.
enum JSONNulCheck {
    static let message = "must not contain NUL (U+0000); send binary data as {\"base64\": ...}"

    /// The field errors for every string (or object key) holding NUL; empty when there is none.
    /// `document`: the body as `JSONSerialization` reads it.
    static func fieldErrors(in bytes: [UInt8], document: Any) -> [FieldError] {
        guard containsEscapedNul(bytes) else { return [] }
        var paths: [String] = []
        collect(document, path: [], into: &paths)
        return paths.map { FieldError(field: $0.isEmpty ? "body" : $0, message: message) }
    }

    static func containsEscapedNul(_ bytes: [UInt8]) -> Bool {
        let escape: [UInt8] = Array(#"\u0000"#.utf8)
        var index = 0
        while index + escape.count <= bytes.count {
            if bytes[index] == UInt8(ascii: "\\") {
                if bytes[index..<(index + escape.count)].elementsEqual(escape) { return true }
                // Any other escape: skip both characters, so `\\u0000` (a backslash, then text) is not one.
                index += 2
            } else {
                index += 1
            }
        }
        return false
    }

    private static func collect(_ value: Any, path: [String], into paths: inout [String]) {
        switch value {
        case let text as String:
            if text.unicodeScalars.contains("\0") { paths.append(path.joined(separator: ".")) }
        case let object as [String: Any]:
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                if key.unicodeScalars.contains("\0") {
                    paths.append((path + [key.replacingOccurrences(of: "\0", with: "\\u0000")]).joined(separator: "."))
                } else {
                    collect(member, path: path + [key], into: &paths)
                }
            }
        case let array as [Any]:
            for (index, element) in array.enumerated() { collect(element, path: path + [String(index)], into: &paths) }
        default:
            return
        }
    }
}
