import Foundation
import Testing
@testable import URLLoading

/// Temporary files and job ids take their UUIDs from `UUID.random()` (getrandom(2)) rather than
/// Foundation's `UUID()` (/dev/urandom opened for each): they must still be RFC 9562 version 4 UUIDs.
@Suite("Random UUIDs")
struct RandomUUIDTests {
    @Test("version 4, RFC 9562 variant, and all different")
    func versionVariantAndUniqueness() {
        var seen = Set<UUID>()
        var highBitsSeen: UInt8 = 0
        for _ in 0..<20_000 {
            let id = UUID.random()
            #expect(seen.insert(id).inserted)
            #expect(id.uuid.6 >> 4 == 4, "version 4: \(id)")
            #expect(id.uuid.8 >> 6 == 0b10, "variant 10: \(id)")
            let text = id.uuidString
            #expect(Array(text.utf8)[14] == UInt8(ascii: "4"))
            #expect(UUID(uuidString: text) == id)
            highBitsSeen |= id.uuid.0 | id.uuid.15
        }
        #expect(highBitsSeen == 0xFF, "the random bytes reach every bit")
    }
}
