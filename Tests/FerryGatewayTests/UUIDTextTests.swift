@testable import FerryModel
import Foundation
import Testing

/// Ids are written in lower case and read in either case, byte by byte rather than through
/// Foundation: written exactly as `uuidString.lowercased()` wrote them, read as `UUID(uuidString:)`
/// read every well-formed id.
@Suite("UUID text")
struct UUIDTextTests {
    @Test("ids are written as Foundation writes them, in lower case")
    func writing() {
        for _ in 0..<5_000 {
            let id = UUID()
            #expect(id.lowercasedString == id.uuidString.lowercased())
        }
        let edges = [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
            UUID(uuid: (0x0a, 0xb9, 0x10, 0x9f, 0xf0, 0x01, 0xa5, 0x5a, 0x99, 0x00, 0x0f, 0xf0, 0x12, 0x34, 0xab, 0xcd)),
        ]
        for id in edges { #expect(id.lowercasedString == id.uuidString.lowercased()) }
        #expect(edges[2].lowercasedString == "0ab9109f-f001-a55a-9900-0ff01234abcd")
    }

    @Test("ids are read in either case")
    func readingBothCases() {
        for _ in 0..<5_000 {
            let id = UUID()
            #expect(UUID(idText: id.uuidString) == id)
            #expect(UUID(idText: id.lowercasedString) == id)
            let mixed = String(id.uuidString.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.lowercased()) : $0.element })
            #expect(UUID(idText: mixed) == id)
        }
    }

    /// Foundation reads each byte pair with `sscanf("%2hhx")`, which also takes a sign, a space or
    /// `0x` as part of a "hex" pair, and ignores what follows the 36th byte: `…ab-d` was read as
    /// `…abf3`, `…ab d` as `…ab0d`, an id with a trailing NUL as the id. Only RFC 9562's form is an id.
    @Test("only RFC 9562's text form is read, and it is read as Foundation reads it")
    func onlyTheRFCForm() throws {
        let id = "0ab9109f-f001-a55a-9900-0ff01234abcd"
        var samples = [
            "", "0", id, id.uppercased(), id + "0", String(id.dropLast()), "{\(id)}", " \(id)", "\(id) ", "\(id)\0",
            "0ab9109ff001a55a99000ff01234abcd", "0ab9109f-f001-a55a-9900-0ff01234abc\u{00E9}",
            "0ab9109f-f001-a55a-9900-0ff01234abcg", "0ab9109f_f001-a55a-9900-0ff01234abcd",
            "0ab9109-ff001-a55a-9900-0ff01234abcd", "0ab9109f-f001-a55a-9900-0ff01234abc\u{FF44}",
            "+ab9109f-f001-a55a-9900-0ff01234abcd", "0xb9109f-f001-a55a-9900-0ff01234abcd",
        ]
        // Every single-byte change of a valid id, at every position.
        let bytes = Array(id.utf8)
        for position in bytes.indices {
            for replacement in [UInt8(ascii: "-"), UInt8(ascii: "G"), UInt8(ascii: "F"), UInt8(ascii: "+"), UInt8(ascii: " "), 0, 0x7F] {
                var changed = bytes
                changed[position] = replacement
                samples.append(String(decoding: changed, as: UTF8.self))
            }
        }
        let form = try Regex("^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")
        var rfcForms = 0
        for sample in samples {
            if sample.utf8.count == 36, sample.wholeMatch(of: form) != nil {
                rfcForms += 1
                #expect(UUID(idText: sample) != nil && UUID(idText: sample) == UUID(uuidString: sample), "\(sample.debugDescription)")
            } else {
                #expect(UUID(idText: sample) == nil, "\(sample.debugDescription)")
            }
        }
        #expect(rfcForms > 30)
        #expect(UUID(uuidString: "0ab9109f-f001-a55a-9900-0ff01234ab-d") != nil, "Foundation's reading, which this one does not inherit")
        #expect(UUID(idText: "0ab9109f-f001-a55a-9900-0ff01234ab-d") == nil)
    }
}
