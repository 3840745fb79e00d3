import Testing
@testable import URLLoading

/// The digest every download carries (`DownloadTask.sha256`, resume data), now OpenSSL's: FIPS 180-4
/// test vectors, and a copy that finishes while the original carries on.
@Suite("SHA-256 hasher")
struct SHA256HasherTests {
    func hex(_ text: String) -> String {
        var hasher = SHA256Hasher()
        hasher.update(Array(text.utf8))
        return hasher.finalizeHex()
    }

    @Test("FIPS 180-4 vectors: empty, abc, and the two-block message")
    func vectors() {
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("a copy finishes the bytes so far while the original carries on; count follows the bytes")
    func copiesFork() {
        var hasher = SHA256Hasher()
        hasher.update(Array("ab".utf8))
        #expect(hasher.currentHexDigest == hex("ab"))
        hasher.update(Array("c".utf8))
        #expect(hasher.count == 3)
        #expect(hasher.finalizeHex() == hex("abc"))
    }
}
