import Testing
@testable import URLLoading

/// curl's receive buffer per transfer shrinks as more transfers share a loop, so that a thousand
/// slow ones do not each keep 256 KiB in memory, while a lone fast one keeps large reads.
@Suite("Receive buffers")
struct ReceiveBufferTests {
    @Test("256 KiB alone or among a few, a share of the loop's budget among many, never under 16 KiB")
    func sharesTheBudget() {
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 0) == 256 << 10)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 1023) == 16 << 10)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 49) == 256 << 10)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 127) == 128 << 10)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 999) == (16 << 20) / 1000)
        #expect(CurlRequestOptions.receiveBufferSize(transfersOnLoop: 100_000) == 16 << 10)
        let many = 1000 * CurlRequestOptions.receiveBufferSize(transfersOnLoop: 999)
        #expect(many <= CurlRequestOptions.receiveBuffersBudget)
    }
}
