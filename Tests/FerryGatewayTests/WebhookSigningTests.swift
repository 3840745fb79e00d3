@testable import FerryGateway
@testable import FerryModel
@testable import FerryWebhooks
import Foundation
import Testing

/// The pure parts of webhooks: the Standard Webhooks signature, the retry schedule and what a
/// receiver's answer means for a delivery.
@Suite("Webhook signing and retries")
struct WebhookSigningTests {
    @Test("the signature matches the Standard Webhooks specification's example")
    func specificationExample() {
        let header = WebhookSignature.header(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8),
            secrets: [Secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test("two secrets give two space-separated signatures; new secrets are whsec_ and 32 random bytes, never shown by description")
    func secrets() {
        let (a, b) = (WebhookSignature.newSecret(), WebhookSignature.newSecret())
        #expect(a != b)
        #expect(a.revealed.hasPrefix("whsec_"))
        #expect(Data(base64Encoded: String(a.revealed.dropFirst(6)))?.count == 32)
        #expect("\(a)" == "<redacted>")
        let header = WebhookSignature.header(id: "1", timestamp: 2, body: Data("{}".utf8), secrets: [a, b])
        let parts = header.split(separator: " ")
        #expect(parts.count == 2 && parts.allSatisfy { $0.hasPrefix("v1,") })
        #expect(parts[0] != parts[1])
    }

    @Test("FERRY_WEBHOOK_RETRY_SCHEDULE parses s, m, h and d and refuses anything else")
    func schedule() throws {
        let schedule = try #require(WebhookRetrySchedule(parsing: "5s, 5m,2h,1d"))
        #expect(schedule.delays == [.seconds(5), .seconds(300), .seconds(7200), .seconds(86_400)])
        for bad in ["", "5", "5x", "-1s", "0s", "1s,,2s", "s"] { #expect(WebhookRetrySchedule(parsing: bad) == nil, "\(bad)") }
        let config = try GatewayConfiguration(environment: ["FERRY_WEBHOOK_RETRY_SCHEDULE": "1s,1s,2s"], currentDirectory: "/")
        #expect(config.webhookRetrySchedule.delays == [.seconds(1), .seconds(1), .seconds(2)])
        #expect(GatewayConfiguration(dataDirectory: "/d").webhookRetrySchedule == .standard)
        #expect(throws: GatewayConfigurationError.self) {
            try GatewayConfiguration(environment: ["FERRY_WEBHOOK_RETRY_SCHEDULE": "soon"], currentDirectory: "/")
        }
    }

    @Test("2xx delivered, 410 gone, a forbidden destination ends at once, others retried with jitter until the schedule ends, Retry-After on 429 and 503 only")
    func decisions() {
        let schedule = WebhookRetrySchedule(delays: [.seconds(10), .seconds(100)])
        #expect(WebhookRetryDecision.next(status: 200, retryAfter: nil, failuresBefore: 5, schedule: schedule) == .delivered)
        #expect(WebhookRetryDecision.next(status: 299, retryAfter: nil, failuresBefore: 0, schedule: schedule) == .delivered)
        #expect(WebhookRetryDecision.next(status: 410, retryAfter: nil, failuresBefore: 0, schedule: schedule) == .failed(disablesEndpoint: true))
        // The SSRF guard refuses the same address every time: no retry on the schedule.
        #expect(
            WebhookRetryDecision.next(status: nil, retryAfter: nil, failuresBefore: 0, schedule: schedule, failure: .destinationForbidden)
                == .failed(disablesEndpoint: false))
        #expect(
            WebhookRetryDecision.next(status: nil, retryAfter: nil, failuresBefore: 0, schedule: schedule, failure: .badURL)
                == .failed(disablesEndpoint: false))
        if case .failed = WebhookRetryDecision.next(status: nil, retryAfter: nil, failuresBefore: 0, schedule: schedule, failure: .cannotConnectToHost) {
            Issue.record("a refused connection may work later: it is retried")
        }
        guard case .retry(let first) = WebhookRetryDecision.next(status: 500, retryAfter: nil, failuresBefore: 0, schedule: schedule) else {
            Issue.record("a 500 is retried")
            return
        }
        #expect(first >= .seconds(8) && first <= .seconds(12))
        guard case .retry(let second) = WebhookRetryDecision.next(status: nil, retryAfter: nil, failuresBefore: 1, schedule: schedule) else {
            Issue.record("no answer is retried")
            return
        }
        #expect(second >= .seconds(80) && second <= .seconds(120))
        #expect(WebhookRetryDecision.next(status: 500, retryAfter: nil, failuresBefore: 2, schedule: schedule) == .failed(disablesEndpoint: false))
        #expect(WebhookRetryDecision.next(status: 429, retryAfter: "30", failuresBefore: 0, schedule: schedule) == .retry(after: .seconds(30)))
        #expect(WebhookRetryDecision.next(status: 503, retryAfter: "9999999", failuresBefore: 0, schedule: schedule) == .retry(after: .seconds(86_400)))
        if case .retry(let ignored) = WebhookRetryDecision.next(status: 500, retryAfter: "30", failuresBefore: 0, schedule: schedule) {
            #expect(ignored <= .seconds(12), "Retry-After counts only with 429 and 503")
        }
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        #expect(WebhookRetryDecision.retryAfter("Tue, 14 Nov 2023 22:14:20 GMT", now: now) == .seconds(60))
        #expect(WebhookRetryDecision.retryAfter("soon", now: now) == nil)
        // RFC 9110 §10.2.3: delay-seconds are digits only, the date an HTTP-date (§5.6.7), nothing looser.
        for loose in ["+30", "-1", "30.5", "Tue, 14 Nov 2023 22:14:20 UTC", "Tue, 14 Nov 23 22:14:20 GMT"] {
            #expect(WebhookRetryDecision.retryAfter(loose, now: now) == nil, "\(loose)")
        }
    }
}
