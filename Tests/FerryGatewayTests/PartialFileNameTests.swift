@testable import FerryStore
import Foundation
import Testing

/// The names that tell a partial file's job and attempt to the sweep.
@Suite("Partial file names")
struct PartialFileNameTests {
    @Test func aPrefixAndItsUUIDReadBackAsTheJobAndAttempt() {
        let job = UUID()
        let name = PartialFileName(job: job, attempt: 12)
        let fileName = "\(name.prefix)\(UUID().uuidString).tmp"
        #expect(PartialFileName(fileName: fileName) == name)
        #expect(PartialFileName.isTemporary(fileName))
    }

    @Test func otherNamesAreNotPartialFiles() {
        let job = UUID().uuidString.lowercased()
        #expect(PartialFileName(fileName: job) == nil, "a job's content")
        #expect(PartialFileName(fileName: "ferry-download-\(UUID().uuidString).tmp") == nil)
        #expect(PartialFileName.isTemporary("ferry-download-\(UUID().uuidString).tmp"))
        #expect(PartialFileName(fileName: "partial-\(job)-x-\(UUID().uuidString).tmp") == nil)
        #expect(PartialFileName(fileName: "partial-not-a-uuid-1-\(UUID().uuidString).tmp") == nil)
        #expect(!PartialFileName.isTemporary(job))
    }
}
