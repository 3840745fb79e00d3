import FerryModel
import FerryStore
import Foundation
import Hummingbird

/// A job as `POST /v1/jobs` answers it: as `GET /v1/jobs/{id}` shows it and, once it succeeded (it
/// ended while the request waited, `Prefer: wait`, or the submission is the replay of a finished
/// job's), where its content is: its URL and, for a data job's body of at most `inlineLimit` bytes,
/// the body itself (base64, as bodies are submitted).
struct SubmittedJobView: ResponseEncodable {
    var job: JobView
    var content: ContentView?

    /// The largest data job body carried in the response.
    static let inlineLimit = 65_536

    struct ContentView: Encodable {
        var href: String
        var size: Int64
        var contentType: String?
        var base64: String?

        enum CodingKeys: String, CodingKey {
            case href, size, base64
            case contentType = "content_type"
        }
    }

    private enum CodingKeys: String, CodingKey { case content }

    init(_ record: JobRecord, files: GatewayFiles) {
        job = JobView(record)
        guard record.state == .succeeded, let result = record.result, result.expired != true else { return }
        var content = ContentView(
            href: "/v1/jobs/\(record.id.uuidString.lowercased())/content", size: result.size, contentType: result.contentType)
        if record.kind == .data, result.size <= Self.inlineLimit, let path = files.absolute(result.file),
           let body = FileManager.default.contents(atPath: path), body.count == result.size {
            content.base64 = body.base64EncodedString()
        }
        self.content = content
    }

    func encode(to encoder: any Encoder) throws {
        try job.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(content, forKey: .content)
    }
}
