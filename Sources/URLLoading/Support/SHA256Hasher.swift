/// Incremental SHA-256 (FIPS 180-4), for the digest of a download as it is written.
///
/// Our own because the engine depends on libcurl alone. A value type: copying it copies the state, so
/// the digest of the bytes so far is `var copy = hasher; copy.finalize()` while hashing carries on
/// (that is how resume data gets the hash of exactly its offset).
struct SHA256Hasher: Sendable {
    private var h0: UInt32 = 0x6a09_e667
    private var h1: UInt32 = 0xbb67_ae85
    private var h2: UInt32 = 0x3c6e_f372
    private var h3: UInt32 = 0xa54f_f53a
    private var h4: UInt32 = 0x510e_527f
    private var h5: UInt32 = 0x9b05_688c
    private var h6: UInt32 = 0x1f83_d9ab
    private var h7: UInt32 = 0x5be0_cd19
    /// Bytes of an unfinished block, fewer than 64.
    private var pending: [UInt8] = []
    /// Bytes hashed so far.
    private(set) var count: Int64 = 0

    init() {
        pending.reserveCapacity(64)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress, !bytes.isEmpty else { return }
        var remaining = bytes.count
        count += Int64(remaining)
        if !pending.isEmpty {
            let taken = min(64 - pending.count, remaining)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: taken))
            base += taken
            remaining -= taken
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { block in
                if let start = block.baseAddress { compress(blocks: start, count: 1) }
            }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = remaining / 64
        if whole > 0 {
            compress(blocks: base, count: whole)
            base += whole * 64
            remaining -= whole * 64
        }
        if remaining > 0 {
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: remaining))
        }
    }

    mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest. Consumes the state: hash on a copy to keep going.
    mutating func finalize() -> [UInt8] {
        let bitLength = UInt64(count) &* 8
        var tail: [UInt8] = [0x80]
        let padding = (56 - (pending.count + 1) % 64 + 64) % 64
        tail += [UInt8](repeating: 0, count: padding)
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        let savedCount = count
        tail.withUnsafeBytes { update($0) }
        count = savedCount
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
            digest += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                       UInt8(truncatingIfNeeded: word)]
        }
        return digest
    }

    /// The digest as 64 lower-case hex digits, the form resume data and `DownloadTask.sha256` use.
    mutating func finalizeHex() -> String {
        Self.hex(finalize())
    }

    /// The hex digest of everything hashed so far, leaving this hasher untouched.
    var currentHexDigest: String {
        var copy = self
        return copy.finalizeHex()
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: - Compression

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Runs the compression function over `count` 64-byte blocks at `blocks` (any alignment).
    ///
    /// Written for unoptimised (debug) builds too, where tests run and the loop thread hashes every
    /// download's bytes: `while` loops rather than ranges, masking shifts (`&>>`, `&<<`) rather than
    /// the generic smart shifts, and raw pointers without bounds checks. That is several times faster
    /// there, and the same code optimised.
    private mutating func compress(blocks: UnsafeRawPointer, count: Int) {
        Self.k.withUnsafeBufferPointer { kBuffer in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { wBuffer in
                guard let k = kBuffer.baseAddress, let w = wBuffer.baseAddress else { return }
                var a0 = h0, b0 = h1, c0 = h2, d0 = h3, e0 = h4, f0 = h5, g0 = h6, h0v = h7
                var block = 0
                while block < count {
                    let start = blocks + block * 64
                    var t = 0
                    while t < 16 {
                        w[t] = UInt32(bigEndian: start.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
                        t &+= 1
                    }
                    while t < 64 {
                        let x = w[t &- 15], y = w[t &- 2]
                        let s0 = x.rotatedRight(7) ^ x.rotatedRight(18) ^ (x &>> 3)
                        let s1 = y.rotatedRight(17) ^ y.rotatedRight(19) ^ (y &>> 10)
                        w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
                        t &+= 1
                    }
                    var a = a0, b = b0, c = c0, d = d0, e = e0, f = f0, g = g0, h = h0v
                    t = 0
                    while t < 64 {
                        let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                        let choose = (e & f) ^ (~e & g)
                        let temp1 = h &+ s1 &+ choose &+ k[t] &+ w[t]
                        let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let temp2 = s0 &+ majority
                        h = g
                        g = f
                        f = e
                        e = d &+ temp1
                        d = c
                        c = b
                        b = a
                        a = temp1 &+ temp2
                        t &+= 1
                    }
                    a0 = a0 &+ a; b0 = b0 &+ b; c0 = c0 &+ c; d0 = d0 &+ d
                    e0 = e0 &+ e; f0 = f0 &+ f; g0 = g0 &+ g; h0v = h0v &+ h
                    block &+= 1
                }
                h0 = a0; h1 = b0; h2 = c0; h3 = d0; h4 = e0; h5 = f0; h6 = g0; h7 = h0v
            }
        }
    }
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedRight(_ amount: UInt32) -> UInt32 {
        (self &>> amount) | (self &<< (32 &- amount))
    }
}
