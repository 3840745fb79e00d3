/// The parts of a job (as `GET /v1/jobs/{id}` returns it) that `ferry` shows or acts on.
///
/// Only what the text output needs is decoded; `--json` prints the API's own bytes instead, so
/// fields added to the API later reach scripts without a change here.
struct GatewayJob: Decodable, Sendable {
    var id: String
    var kind: String
    var state: String
    var stopRequested: String?
    var attempt: Int
    var maxAttempts: Int
    var createdAt: String
    var finishedAt: String?
    var request: Request
    var progress: Progress
    var response: Response?
    var result: Result?
    var error: Failure?

    struct Request: Decodable, Sendable {
        var url: String
        var method: String
    }

    struct Progress: Decodable, Sendable {
        var bytesDone: Int64
        var bytesExpected: Int64?
        var rate: Double?
        enum CodingKeys: String, CodingKey {
            case bytesDone = "bytes_done"
            case bytesExpected = "bytes_expected"
            case rate
        }
    }

    struct Response: Decodable, Sendable {
        var status: Int?
    }

    struct Result: Decodable, Sendable {
        var size: Int64
        var sha256: String
    }

    struct Failure: Decodable, Sendable {
        var code: String
        var message: String
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, state
        case stopRequested = "stop_requested"
        case attempt
        case maxAttempts = "max_attempts"
        case createdAt = "created_at"
        case finishedAt = "finished_at"
        case request, progress, response, result, error
    }

    /// The states no job leaves.
    static let terminalStates: Set<String> = ["succeeded", "failed", "cancelled"]

    var isTerminal: Bool { Self.terminalStates.contains(state) }
}
