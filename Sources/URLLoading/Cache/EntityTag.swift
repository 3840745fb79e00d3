import Foundation

/// An entity tag (RFC 9110 §8.8.3), `"xyzzy"` or weak `W/"xyzzy"`, as the cache compares them.
///
/// The cache never rewrites a tag: a conditional request carries the origin's `ETag` exactly as it
/// was sent, even when it breaks the grammar (an unquoted one); such a tag is compared as its whole
/// text, strong.
struct EntityTag: Equatable {
    /// The quoted part, quotes included; the whole text for a tag outside the grammar.
    let opaqueTag: Substring
    let isWeak: Bool

    init(_ text: Substring) {
        let value = Substring(text.trimmingCharacters(in: .whitespaces))
        if value.hasPrefix("W/"), Self.isQuoted(value.dropFirst(2)) {
            opaqueTag = value.dropFirst(2)
            isWeak = true
        } else {
            opaqueTag = value
            isWeak = false
        }
    }

    /// Strong comparison (§8.8.3.2): both strong and the same opaque tag. For If-Range, and for a 304
    /// that identifies the stored response by a strong validator (RFC 9111 §4.3.4).
    func matchesStrongly(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaqueTag == other.opaqueTag
    }

    /// Weak comparison (§8.8.3.2): the same opaque tag, weak or not. For If-None-Match (§13.1.2).
    func matchesWeakly(_ other: EntityTag) -> Bool {
        opaqueTag == other.opaqueTag
    }

    /// The tags of an `If-None-Match`-style list; nil for "*" (any current representation).
    static func list(_ value: String) -> [EntityTag]? {
        if value.trimmingCharacters(in: .whitespaces) == "*" { return nil }
        return FieldValueList.members(value).map(EntityTag.init).filter { !$0.opaqueTag.isEmpty }
    }

    private static func isQuoted(_ text: Substring) -> Bool {
        text.count >= 2 && text.first == "\"" && text.last == "\""
    }
}
