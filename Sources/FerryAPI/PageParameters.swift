import FerryModel
import FerryStore
import Hummingbird

/// `limit` and `cursor` of a list read in pages, newest first (`GET /v1/jobs`, `GET /v1/credentials`, `GET /v1/webhooks/deliveries`).
struct PageParameters {
    static let defaultSize = 50
    static let maximumSize = 500

    var limit = defaultSize
    var cursor: JobCursor?

    /// Reads both from the query; what is wrong with them is added to `errors`.
    init(_ request: Request, errors: inout [Problem.FieldError]) {
        let query = request.uri.queryParameters
        if let text = query["limit"].map(String.init) {
            if let value = Int(text), (1...Self.maximumSize).contains(value) { limit = value } else {
                errors.append(.init(field: "limit", message: "must be a number from 1 to \(Self.maximumSize)"))
            }
        }
        if let text = query["cursor"].map(String.init) {
            cursor = JobCursor(token: text)
            if cursor == nil { errors.append(.init(field: "cursor", message: "is not a cursor this API returned")) }
        }
    }
}
