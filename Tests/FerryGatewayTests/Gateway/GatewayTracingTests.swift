import Foundation
import Testing
import URLLoadingTestSupport

/// Distributed tracing end to end (issue 22): a real ferryd exporting over OTLP/HTTP (swift-otel) to
/// a receiver the test runs, a caller's W3C `traceparent` continued through the job's attempt, the
/// engine's hops, the database calls and the webhook delivery.
@Suite("Gateway tracing", .timeLimit(.minutes(5)))
struct GatewayTracingTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let callerSpanID = "00f067aa0ba902b7"
    static let traceparent = "00-\(traceID)-\(callerSpanID)-01"

    static func submit(_ client: GatewayClient, _ job: [String: Any], headers: [String: String]) async throws -> String {
        let reply = try await client.send("POST", "/v1/jobs", json: job, headers: headers)
        guard reply.status == 201, let id = reply["id"] as? String else { throw TestFailure("submitting answered \(reply.status): \(reply.text)") }
        return id
    }

    @Test("with OTEL_EXPORTER_OTLP_ENDPOINT set, one job's trace reaches the OTLP receiver: the submission, the attempt, its hop and phases, database calls and the webhook, all in the caller's trace")
    func jobTraceIsExported() async throws {
        try await OTLPReceiver.withRunning { collector in
            try await WebhookReceiver.withRunning { hooks in
                var options = FerrydServer.Options()
                options.environment = [
                    "OTEL_EXPORTER_OTLP_ENDPOINT": collector.baseURL,
                    // Milliseconds: spans leave within a fraction of a second rather than 5 s.
                    "OTEL_BSP_SCHEDULE_DELAY": "200",
                    "OTEL_SERVICE_NAME": "ferryd-under-test",
                ]
                try await GatewayFixture.with(options: options) { fixture in
                    let (_, client) = try await fixture.tenant()
                    let job: [String: Any] = [
                        "kind": "download", "request": ["url": fixture.origin.url("/bytes/20000")], "callback": ["url": hooks.url()],
                    ]
                    let id = try await Self.submit(client, job, headers: ["traceparent": Self.traceparent, "tracestate": "vendor=opaque"])
                    let finished = try await client.waitForState(id, ["succeeded", "failed"])
                    #expect(finished["state"] as? String == "succeeded")

                    // The webhook carries the trace on: same trace, the delivery's span as parent.
                    let deliveries = try await hooks.waitFor { $0.contains { $0.type == "job.succeeded" } }
                    let delivery = try #require(deliveries.first { $0.type == "job.succeeded" })
                    let sent = try #require(delivery.headers["traceparent"])
                    #expect(sent.hasPrefix("00-\(Self.traceID)-"), "\(sent)")
                    #expect(!sent.contains(Self.callerSpanID))

                    let names = ["job.attempt", "webhook.deliver", "GET", "connect", "first byte", "body"]
                    let spans = try await collector.waitFor {
                        let ours = $0.filter { $0.traceID == Self.traceID }
                        return names.allSatisfy { name in ours.contains { $0.name == name } }
                            && ours.contains { $0.attributes["db.system.name"] == "postgresql" }
                    }.filter { $0.traceID == Self.traceID }
                    let byName = Dictionary(spans.map { ($0.name, $0) }) { first, _ in first }
                    let server = try #require(spans.first { $0.kind == 2 && $0.attributes["http.request.method"] == "POST" }, "\(spans)")
                    #expect(server.parentSpanID == Self.callerSpanID, "the submission's span continues the caller's")
                    #expect(server.serviceName == "ferryd-under-test")
                    let attempt = try #require(byName["job.attempt"], "\(spans)")
                    #expect(attempt.parentSpanID == server.spanID, "the attempt hangs under the submission")
                    #expect(attempt.attributes["ferry.job.id"] == id)
                    #expect(attempt.attributes["ferry.attempt.outcome"] == "succeeded")
                    let hop = try #require(byName["GET"])
                    #expect(hop.parentSpanID == attempt.spanID)
                    #expect(hop.kind == 3)
                    #expect(hop.attributes["http.response.status_code"] == "200")
                    for phase in ["connect", "first byte", "body"] {
                        let span = try #require(byName[phase])
                        #expect(span.parentSpanID == hop.spanID, "\(phase)")
                        #expect(span.startNanoseconds >= hop.startNanoseconds && span.endNanoseconds <= hop.endNanoseconds, "\(phase) lies within its hop")
                    }
                    #expect(byName["connect"]!.endNanoseconds <= byName["first byte"]!.startNanoseconds + 1)
                    #expect(spans.contains { $0.attributes["db.system.name"] == "postgresql" && $0.parentSpanID == attempt.spanID }, "\(spans)")
                    #expect(byName["webhook.deliver"]?.parentSpanID == server.spanID)
                    // A database span names the store's code that asked, not the pool's helper.
                    #expect(!spans.contains { $0.attributes["code.file.path"]?.hasSuffix("DatabasePool+Transaction.swift") == true }, "\(spans)")
                    // No header, and so no API key, is recorded on any span.
                    #expect(!spans.contains { $0.attributes.values.contains { $0.contains("Bearer") } })
                }
            }
        }
    }

    @Test("without OTEL_* variables nothing is exported, and the webhook still carries the caller's traceparent and tracestate as sent")
    func untracedGatewayForwardsTheCallersTrace() async throws {
        try await WebhookReceiver.withRunning { hooks in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                let job: [String: Any] = ["kind": "data", "request": ["url": fixture.origin.url("/bytes/10")], "callback": ["url": hooks.url()]]
                let id = try await Self.submit(client, job, headers: ["traceparent": Self.traceparent, "tracestate": "vendor=opaque"])
                _ = try await client.waitForState(id, ["succeeded", "failed"])
                let deliveries = try await hooks.waitFor { $0.contains { $0.type == "job.succeeded" } }
                let delivery = try #require(deliveries.first { $0.type == "job.succeeded" })
                #expect(delivery.headers["traceparent"] == Self.traceparent)
                #expect(delivery.headers["tracestate"] == "vendor=opaque")

                // A malformed traceparent is ignored (Trace Context §3.2), not refused.
                let other = try await Self.submit(client, job, headers: ["traceparent": "00-\(Self.traceID.uppercased())-\(Self.callerSpanID)-01"])
                _ = try await client.waitForState(other, ["succeeded", "failed"])
                let all = try await hooks.waitFor { $0.filter { $0.type == "job.succeeded" }.count == 2 }
                let second = try #require(all.last { $0.type == "job.succeeded" && ($0.job["id"] as? String) == other })
                #expect(second.headers["traceparent"] == nil)
            }
        }
    }
}
