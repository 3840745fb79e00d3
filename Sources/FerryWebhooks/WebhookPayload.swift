import FerryModel
import Foundation

/// The body of every delivery: `{"type", "timestamp", "data"}`, data being the job as the API shows
/// it at the event. Built from the stored event, so every attempt sends the same bytes.
struct WebhookPayload: Encodable {
    var type: String
    var timestamp: String
    var data: JobView

    /// `part`: a `job.part` event's part, in `data.part` (LC-10).
    init(type: String, time: Date, job: JobRecord, part: JobPartView? = nil) {
        self.type = type
        timestamp = JobView.timestamp(time)
        data = JobView(job)
        data.part = part
    }

    func encoded() throws -> Data {
        try WireJSON.encoder.encode(self)
    }
}
