@testable import FerryAPI
import Testing

/// `JSONDuplicateKeys`: every key an object repeats, compared as the string it spells, with its path.
@Suite("JSON duplicate keys")
struct JSONDuplicateKeysTests {
    static func fields(_ json: String) -> [String] {
        JSONDuplicateKeys.fieldErrors(in: Array(json.utf8)).map(\.field)
    }

    @Test("repeated keys are found at any depth, in objects within arrays, once each however often repeated")
    func findsRepeats() {
        #expect(Self.fields(#"{"a":1,"b":2}"#).isEmpty)
        #expect(Self.fields(#"{"a":1,"a":2,"a":3}"#) == ["a"])
        #expect(Self.fields(#" { "a" : { "b" : [ 1 , { "c" : true , "c" : null } ] , "b" : 0 } } "#) == ["a.b.1.c", "a.b"])
        // The same key in two objects is no repeat.
        #expect(Self.fields(#"[{"a":1},{"a":2}]"#).isEmpty)
        #expect(Self.fields(#"{"a":{"a":{"a":1}}}"#).isEmpty)
    }

    @Test("keys are compared unescaped: \\u escapes (surrogate pairs too) and short escapes spell the same key")
    func comparesUnescaped() {
        #expect(Self.fields(#"{"kind":1,"\u006bind":2}"#) == ["kind"])
        #expect(Self.fields(#"{"\uD83D\uDE00":1,"😀":2}"#) == ["😀"])
        #expect(Self.fields(#"{"a/b":1,"a\/b":2}"#) == ["a/b"])
        #expect(Self.fields(#"{"a\"":1,"a\u0022":2}"#) == [#"a""#])
        // Case matters: these are two keys.
        #expect(Self.fields(#"{"Kind":1,"kind":2}"#).isEmpty)
        // Strings as values are skipped whole, braces and quotes inside them included.
        #expect(Self.fields(#"{"a":"}\",{\"a\":1","b":1}"#).isEmpty)
    }

    @Test("text that is not JSON, or nested past the decoder's depth, yields nothing: decoding refuses it")
    func leavesBrokenTextToTheDecoder() {
        for text in [#"{"a":1,"a""#, #"{"a" 1, "a": 2}"#, #"{"\uD800":1,"\uD800":2}"#, #"{"\x":1,"\x":2}"#, "", "{"] {
            #expect(Self.fields(text).isEmpty, "\(text)")
        }
        let deep = String(repeating: "[", count: 600) + #"{"a":1,"a":2}"# + String(repeating: "]", count: 600)
        #expect(Self.fields(deep).isEmpty)
        let shallow = String(repeating: "[", count: 100) + #"{"a":1,"a":2}"# + String(repeating: "]", count: 100)
        #expect(Self.fields(shallow).count == 1)
    }
}
