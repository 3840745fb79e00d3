import Foundation
import Hummingbird
import Synchronization

/// A webhook receiver on loopback for the tests: records every POST it gets and answers what the
/// test scripted (by default 204), one scripted answer per request in order.
final class WebhookReceiver: Sendable {
    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var retryAfter: String?

        static let ok = Answer(status: .noContent)
        static func status(_ status: HTTPResponse.Status, retryAfter: String? = nil) -> Answer { Answer(status: status, retryAfter: retryAfter) }
    }

    struct Delivery: Sendable {
        var path: String
        var headers: [String: String]
        var body: Data
        var receivedAt: ContinuousClock.Instant
        var answered: Int

        var webhookID: String { headers["webhook-id"] ?? "" }
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
        var type: String? { json["type"] as? String }
        var job: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    }

    /// What the route and the test share.
    private final class Recorder: Sendable {
        let state = Mutex<(script: [Answer], fallback: Answer, received: [Delivery])>(([], .ok, []))
    }

    let baseURL: String
    private let recorder: Recorder

    private init(baseURL: String, recorder: Recorder) {
        self.baseURL = baseURL
        self.recorder = recorder
    }

    /// A URL of this receiver; the path tells tests' receivers apart in the recordings.
    func url(_ path: String = "/hook") -> String { baseURL + path }

    /// Answers for the next requests, in order; after them, `fallback`.
    func script(_ answers: [Answer], then fallback: Answer = .ok) {
        recorder.state.withLock {
            $0.script = answers
            $0.fallback = fallback
        }
    }

    var deliveries: [Delivery] { recorder.state.withLock { $0.received } }

    /// Waits until `condition` holds for the deliveries so far (at most `timeout`), and returns them.
    func waitFor(timeout: Duration = .seconds(60), _ condition: ([Delivery]) -> Bool) async throws -> [Delivery] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let now = deliveries
            if condition(now) { return now }
            try await Task.sleep(for: .milliseconds(50))
        }
        return deliveries
    }

    static func withRunning<T>(_ body: (WebhookReceiver) async throws -> T) async throws -> T {
        let recorder = Recorder()
        let router = Router()
        router.post("/**") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let answer = recorder.state.withLock { state -> Answer in
                let answer = state.script.isEmpty ? state.fallback : state.script.removeFirst()
                state.received.append(Delivery(
                    path: request.uri.path, headers: headers, body: Data(bytes.readableBytesView), receivedAt: .now,
                    answered: Int(answer.status.code)))
                return answer
            }
            var fields = HTTPFields()
            if let retryAfter = answer.retryAfter { fields[.retryAfter] = retryAfter }
            return Response(status: answer.status, headers: fields)
        }
        return try await LoopbackTestServer.withRunning(router, label: "webhook receiver") { baseURL in
            try await body(WebhookReceiver(baseURL: baseURL, recorder: recorder))
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
