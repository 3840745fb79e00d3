import FerryModel
import FerryStore
import Hummingbird

/// `GET /v1/jobs/{id}/attempts`: every run of the job with its timing, outcome and bytes.
struct JobAttemptList: ResponseEncodable {
    struct AttemptView: Encodable {
        var attempt: Int
        var startedAt: String
        var finishedAt: String?
        var outcome: String?
        var errorCode: String?
        var httpStatus: Int?
        var bytes: Int64
        enum CodingKeys: String, CodingKey {
            case attempt
            case startedAt = "started_at"
            case finishedAt = "finished_at"
            case outcome
            case errorCode = "error_code"
            case httpStatus = "http_status"
            case bytes
        }
    }

    var attempts: [AttemptView]

    init(_ attempts: [JobStore.Attempt]) {
        self.attempts = attempts.map {
            AttemptView(
                attempt: $0.attempt, startedAt: JobView.timestamp($0.startedAt), finishedAt: $0.finishedAt.map(JobView.timestamp),
                outcome: $0.outcome, errorCode: $0.errorCode, httpStatus: $0.httpStatus, bytes: $0.bytes)
        }
    }
}
