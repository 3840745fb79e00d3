import Testing
@testable import URLLoading

/// curl's receive buffer per transfer shrinks as more transfers share a loop, so that a thousand
/// slow ones do not each keep 256 KiB in memory, while a lone fast one keeps large reads.
@Suite("Receive buffers")
struct ReceiveBufferTests {
    @Test("256 KiB among a few, 64 KiB among dozens, 16 KiB among more; a thousand started one by one hold under 24 MiB")
    func shrinkWithTheCrowd() {
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 0) == 256 << 10)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 15) == 256 << 10)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 16) == 64 << 10)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 63) == 64 << 10)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 64) == 16 << 10)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 100_000) == 16 << 10)
        let thousand = (0..<1000).reduce(0) { $0 + CurlRequestOptions.receiveBufferSize(transfersOnLoop: $1) }
        #expect(thousand < 24 << 20)
    }
}
