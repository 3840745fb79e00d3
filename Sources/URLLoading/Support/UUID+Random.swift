import Foundation

extension UUID {
    /// A random (version 4) UUID from the system's generator (getrandom(2)). Foundation's `UUID.random()`
    /// opens, reads and closes /dev/urandom for each one on Linux, and a UUID names every temporary
    /// file of a transfer and every job a batch submits.
    package static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            // RFC 9562 §5.4: version 4 in the high nibble of byte 6, variant 0b10 in byte 8.
            raw[6] = raw[6] & 0x0F | 0x40
            raw[8] = raw[8] & 0x3F | 0x80
            return UUID(uuid: raw.load(as: uuid_t.self))
        }
    }
}
