import FerryModel
import Hummingbird

/// `GET /v1/jobs`: a page of jobs and the cursor of the next page (nil on the last).
struct JobPage: ResponseEncodable {
    var jobs: [JobView]
    var nextCursor: String?
    enum CodingKeys: String, CodingKey {
        case jobs
        case nextCursor = "next_cursor"
    }
}

/// The reply to `POST /v1/jobs/batch`: its jobs in the order they were submitted.
struct JobBatchView: ResponseEncodable {
    var jobs: [JobView]
}
