import Foundation

/// One part of a job's `multipart/x-mixed-replace` response, as a `job.part` event carries it
/// (LC-10): its number (from 1), its headers (credential-bearing ones `<redacted>`, as in every
/// view, before they are stored) and its body's size. Stored as `job_events.part`.
package struct JobPartView: Codable, Sendable, Equatable {
    package var index: Int
    package var headers: [String: String]
    package var size: Int64

    package init(index: Int, headers: [String: String], size: Int64) {
        self.index = index
        self.headers = headers
        self.size = size
    }
}
