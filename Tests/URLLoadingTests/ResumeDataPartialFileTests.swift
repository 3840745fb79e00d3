import Crypto
import Foundation
import Testing
import URLLoading

/// `ResumeData.coveringWholePartialFile()`: continuing after bytes written past a snapshot (DL-12).
@Suite("Resume data over the whole partial file")
struct ResumeDataPartialFileTests {
    static func hex(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    /// A 3 MB file whose resume data was taken at `offset`, as a snapshot before a process died.
    static func snapshot(in directory: TemporaryDirectory, offset: Int, recordedPrefix: Data? = nil) throws -> (ResumeData, Data) {
        let body = Fixture.pattern(3_000_000)
        let file = directory.url.appendingPathComponent("partial.tmp")
        try body.write(to: file)
        let resumeData = ResumeData(
            url: URL(string: "http://127.0.0.1:1/bytes/3000000")!, originalRequest: Fixture.request("http://127.0.0.1:1/bytes/3000000"),
            entityTag: "\"bytes-3000000\"", lastModified: nil, offset: Int64(offset), partialFile: file,
            sha256: hex(recordedPrefix ?? body.prefix(offset)), expectedTotal: 3_000_000)
        return (resumeData, body)
    }

    @Test("bytes written after the snapshot are covered once the recorded prefix checks out (DL-12)")
    func extendsOverTheTail() throws {
        let directory = try TemporaryDirectory()
        let (resumeData, body) = try Self.snapshot(in: directory, offset: 1_234_567)
        let extended = resumeData.coveringWholePartialFile()
        #expect(extended.offset == 3_000_000)
        #expect(extended.sha256 == Self.hex(body))
        #expect(extended.entityTag == resumeData.entityTag)
        #expect(extended.partialFile == resumeData.partialFile)
    }

    @Test("a changed prefix, a missing file or nothing past the offset leave the resume data as it was (DL-10)")
    func leavesItAlone() throws {
        let directory = try TemporaryDirectory()
        let (changed, _) = try Self.snapshot(in: directory, offset: 1_000_000, recordedPrefix: Data(repeating: 7, count: 1_000_000))
        #expect(changed.coveringWholePartialFile() == changed)

        let (whole, _) = try Self.snapshot(in: directory, offset: 3_000_000)
        #expect(whole.coveringWholePartialFile() == whole)

        var missing = whole
        missing.partialFile = directory.url.appendingPathComponent("gone.tmp")
        #expect(missing.coveringWholePartialFile() == missing)
    }
}
