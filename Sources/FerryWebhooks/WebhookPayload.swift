import FerryModel
import Foundation

/// The body of every delivery: `{"type", "timestamp", "data"}`, data being the job as the API shows
/// it at the event. Built from the stored event, so every attempt sends the same bytes.
struct WebhookPayload: Encodable {
    var type: String
    var timestamp: String
    var data: JobView

    init(type: String, time: Date, job: JobRecord) {
        self.type = type
        timestamp = JobView.timestamp(time)
        data = JobView(job)
    }

    func encoded() throws -> Data {
        try WireJSON.encoder.encode(self)
    }
}
