import Foundation
import Testing

/// Webhooks through a real ferryd to a receiver on loopback that verifies every signature on its own
///: callbacks signed with the tenant's secret, rotation, endpoints, retries, 410, 429,
/// a kill -9 between completion and delivery, the delivery log and tenant isolation.
@Suite("Gateway webhooks", .timeLimit(.minutes(5)))
struct GatewayWebhookTests {
    static func job(_ fixture: GatewayFixture, callback: String? = nil, size: Int = 1000) -> [String: Any] {
        var job: [String: Any] = ["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(size)")]]
        if let callback { job["callback"] = ["url": callback] }
        return job
    }

    static func deliveries(_ client: GatewayClient, job: String, admin: Bool = false) async throws -> [[String: Any]] {
        let reply = try await client.get("\(admin ? "/v1/admin" : "/v1")/webhooks/deliveries?job=\(job)")
        return reply["deliveries"] as? [[String: Any]] ?? []
    }

    /// Polls the delivery log until `condition` holds for the job's deliveries.
    static func waitForDeliveries(
        _ client: GatewayClient, job: String, until condition: ([[String: Any]]) -> Bool
    ) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(60)
        var last: [[String: Any]] = []
        while ContinuousClock.now < deadline {
            last = try await deliveries(client, job: job)
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        return last
    }

    @Test("a job's callback gets job.succeeded signed with the tenant's secret; tampered body, old timestamp and wrong secret fail verification")
    func callbackIsSigned() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                let secretReply = try await client.get("/v1/webhooks/secret")
                #expect(secretReply.status == 200)
                let secret = try #require(secretReply["secret"] as? String)
                #expect(secret.hasPrefix("whsec_"))
                #expect(Data(base64Encoded: String(secret.dropFirst(6)))?.count ?? 0 >= 24)
                #expect(try await client.get("/v1/webhooks/secret")["secret"] as? String == secret, "made once, then kept")

                let id = try await client.submit(Self.job(fixture, callback: receiver.url("/job")))
                let received = try await receiver.waitFor { !$0.isEmpty }
                let delivery = try #require(received.first)
                #expect(delivery.type == "job.succeeded")
                #expect(delivery.job["id"] as? String == id)
                #expect(delivery.job["state"] as? String == "succeeded")
                #expect(delivery.json["timestamp"] is String)
                #expect(delivery.headers["content-type"] == "application/json")
                #expect(StandardWebhookVerifier.isValid(delivery, secret: secret))

                var tampered = delivery
                tampered.body = Data(String(decoding: delivery.body, as: UTF8.self).replacingOccurrences(of: "succeeded", with: "failed").utf8)
                #expect(!StandardWebhookVerifier.isValid(tampered, secret: secret))
                #expect(!StandardWebhookVerifier.isValid(delivery, secret: secret, now: Date().addingTimeInterval(600)))
                let rotated = try await client.post("/v1/webhooks/secret/rotate")
                let newSecret = try #require(rotated["secret"] as? String)
                #expect(newSecret != secret)
                #expect(!StandardWebhookVerifier.isValid(delivery, secret: newSecret), "another secret does not verify it")

                // The job's final state is the only callback event; the log shows the 2xx attempt.
                let log = try await Self.waitForDeliveries(client, job: id) { $0.first?["status"] as? String == "delivered" }
                #expect(log.count == 1)
                let entry = try #require(log.first)
                #expect(entry["webhook_id"] as? String == delivery.webhookID)
                #expect(entry["type"] as? String == "job.succeeded")
                #expect(entry["endpoint"] == nil)
                let attempts = entry["attempts"] as? [[String: Any]] ?? []
                #expect(attempts.count == 1)
                #expect(attempts.first?["response_status"] as? Int == 204)
                #expect(attempts.first?["latency_ms"] is Int)
            }
        }
    }

    @Test("after a rotation both secrets sign: webhook-signature carries two v1 signatures, each verifying with one secret")
    func rotationSendsBothSignatures() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                let old = try #require(try await client.get("/v1/webhooks/secret")["secret"] as? String)
                let rotation = try await client.post("/v1/webhooks/secret/rotate")
                #expect(rotation.status == 200)
                let new = try #require(rotation["secret"] as? String)
                #expect(rotation["previous_valid_until"] is String)
                #expect(try await client.get("/v1/webhooks/secret")["secret"] as? String == new)

                _ = try await client.submit(Self.job(fixture, callback: receiver.url()))
                let delivery = try #require(try await receiver.waitFor { !$0.isEmpty }.first)
                let signatures = (delivery.headers["webhook-signature"] ?? "").split(separator: " ")
                #expect(signatures.count == 2, "\(signatures)")
                #expect(signatures.allSatisfy { $0.hasPrefix("v1,") })
                #expect(StandardWebhookVerifier.isValid(delivery, secret: new))
                #expect(StandardWebhookVerifier.isValid(delivery, secret: old))
            }
        }
    }

    @Test("a receiver failing twice gets the same webhook-id three times, on the retry schedule, and the log shows 500, 500, 204")
    func retriesUntilTheReceiverRecovers() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                receiver.script([.status(.internalServerError), .status(.internalServerError)])
                let id = try await client.submit(Self.job(fixture, callback: receiver.url()))
                let received = try await receiver.waitFor { $0.count >= 3 }
                #expect(received.map(\.answered) == [500, 500, 204])
                #expect(Set(received.map(\.webhookID)).count == 1, "one event, one webhook-id: \(received.map(\.webhookID))")
                #expect(Set(received.map(\.body)).count == 1, "every attempt sends the same payload")
                let log = try await Self.waitForDeliveries(client, job: id) { $0.first?["status"] as? String == "delivered" }
                let attempts = log.first?["attempts"] as? [[String: Any]] ?? []
                #expect(attempts.compactMap { $0["response_status"] as? Int } == [500, 500, 204])
                #expect(attempts.compactMap { $0["attempt"] as? Int } == [1, 2, 3])
            }
        }
    }

    @Test("webhook targets pass the jobs' SSRF guard: without FERRY_ALLOW_PRIVATE_NETWORKS a loopback callback is never called")
    func callbackToAPrivateAddressIsRefused() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with(options: .init(allowPrivateNetworks: false)) { fixture in
                let (_, client) = try await fixture.tenant()
                // The job's own loopback URL is refused too, so it fails, and its job.failed event
                // is due to the loopback receiver.
                let id = try await client.submit(Self.job(fixture, callback: receiver.url()))
                let failed = try await client.waitForState(id, ["failed", "succeeded"])
                #expect((failed["error"] as? [String: Any])?["code"] as? String == "destination_forbidden")
                let log = try await Self.waitForDeliveries(client, job: id) {
                    (($0.first?["attempts"] as? [[String: Any]]) ?? []).count >= 1
                }
                let attempts = log.first?["attempts"] as? [[String: Any]] ?? []
                #expect(attempts.first?["response_status"] == nil)
                #expect((attempts.first?["error"] as? String)?.hasPrefix("destination_forbidden") == true, "\(attempts)")
                #expect(receiver.deliveries.isEmpty, "the receiver on 127.0.0.1 was never reached")
            }
        }
    }

    @Test("429 with Retry-After: 3 waits at least 3 seconds, not the schedule's 1 s")
    func retryAfterIsHonoured() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                receiver.script([.status(.tooManyRequests, retryAfter: "3")])
                _ = try await client.submit(Self.job(fixture, callback: receiver.url()))
                let received = try await receiver.waitFor { $0.count >= 2 }
                #expect(received.map(\.answered) == [429, 204])
                if received.count == 2 {
                    #expect(received[1].receivedAt - received[0].receivedAt >= .seconds(3))
                }
            }
        }
    }

    @Test("an endpoint gets the event types it subscribed to with its own secret; a 410 disables it and it gets no more deliveries")
    func endpointsAndGone() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                let (_, client) = try await fixture.tenant()
                let created = try await client.post("/v1/webhooks/endpoints", json: ["url": receiver.url("/endpoint"), "events": ["job.running", "job.succeeded"]])
                #expect(created.status == 201)
                let endpoint = try #require(created["id"] as? String)
                let secret = try #require(created["secret"] as? String)
                let listed = try await client.get("/v1/webhooks/endpoints")["endpoints"] as? [[String: Any]] ?? []
                #expect(listed.map { $0["id"] as? String } == [endpoint])
                #expect(listed.first?["secret"] == nil, "the secret is shown once")

                let first = try await client.submit(Self.job(fixture))
                let received = try await receiver.waitFor { $0.count >= 2 }
                #expect(Set(received.compactMap(\.type)) == ["job.running", "job.succeeded"])
                #expect(received.allSatisfy { StandardWebhookVerifier.isValid($0, secret: secret) })
                #expect(received.allSatisfy { $0.job["id"] as? String == first })

                receiver.script([], then: .status(.gone))
                let second = try await client.submit(Self.job(fixture))
                _ = try await receiver.waitFor { $0.contains { $0.answered == 410 } }
                let disabled = try await client.waitForEndpoint(endpoint) { $0["disabled_at"] != nil }
                #expect(disabled["disabled_at"] is String)
                _ = try await client.waitForState(second, ["succeeded"])
                // The second job's deliveries all end failed (any not yet tried, without a request),
                // and a third job's events are not even queued for the disabled endpoint.
                let third = try await client.submit(Self.job(fixture))
                _ = try await client.waitForState(third, ["succeeded"])
                let log = try await Self.waitForDeliveries(client, job: second) { $0.allSatisfy { $0["status"] as? String != "pending" } }
                #expect(log.allSatisfy { $0["status"] as? String == "failed" }, "\(log)")
                #expect(try await Self.deliveries(client, job: third).isEmpty)
            }
        }
    }

    @Test("ferryd killed (kill -9) after a job finished but before its callback got through: the next ferryd delivers exactly the final event")
    func deliveryOutlivesACrash() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with(options: .init(webhookRetrySchedule: "1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s")) { fixture in
                let (_, client) = try await fixture.tenant()
                receiver.script([], then: .status(.serviceUnavailable))
                let id = try await client.submit(Self.job(fixture, callback: receiver.url()))
                _ = try await client.waitForState(id, ["succeeded"])
                _ = try await receiver.waitFor { !$0.isEmpty }
                await fixture.server.kill()
                receiver.script([], then: .ok)

                let restarted = try await fixture.startAnother(name: "ferryd-restarted", options: .init(webhookRetrySchedule: "1s,1s,1s,1s,1s,1s"))
                do {
                    // Up to a minute more when the kill hit an attempt in flight: its claim must run out first.
                    let received = try await receiver.waitFor(timeout: .seconds(150)) { $0.contains { $0.answered == 204 } }
                    let delivered = received.filter { $0.answered == 204 }
                    #expect(delivered.count == 1)
                    #expect(Set(received.map(\.webhookID)).count == 1, "every attempt, before and after the crash, is the one event")
                    #expect(delivered.first?.type == "job.succeeded")
                    #expect(delivered.first?.job["state"] as? String == "succeeded")
                    let secret = try await client.with(baseURL: restarted.baseURL).get("/v1/webhooks/secret")["secret"] as? String ?? ""
                    #expect(delivered.allSatisfy { StandardWebhookVerifier.isValid($0, secret: secret) })
                    let log = try await Self.waitForDeliveries(client.with(baseURL: restarted.baseURL), job: id) {
                        $0.first?["status"] as? String == "delivered"
                    }
                    #expect(log.count == 1)
                    _ = try await restarted.terminate()
                } catch {
                    print("restarted ferryd log:\n\(restarted.log)")
                    _ = try? await restarted.terminate()
                    throw error
                }
            }
        }
    }

    @Test("redeliver sends a delivery again with the same webhook-id; another tenant's deliveries and endpoints are 404s, the admin sees all")
    func redeliveryAndIsolation() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                let (tenant, client) = try await fixture.tenant()
                let (_, other) = try await fixture.tenant()
                let id = try await client.submit(Self.job(fixture, callback: receiver.url()))
                let log = try await Self.waitForDeliveries(client, job: id) { $0.first?["status"] as? String == "delivered" }
                let delivery = try #require(log.first?["id"] as? String)

                #expect(try await Self.deliveries(other, job: id).isEmpty)
                let foreign = try await other.post("/v1/webhooks/deliveries/\(delivery)/redeliver")
                #expect(foreign.status == 404)
                let endpoint = try #require(try await client.post("/v1/webhooks/endpoints", json: ["url": receiver.url(), "events": ["job.failed"]])["id"] as? String)
                #expect(try await other.delete("/v1/webhooks/endpoints/\(endpoint)").status == 404)
                #expect((try await other.get("/v1/webhooks/endpoints")["endpoints"] as? [Any])?.isEmpty == true)
                #expect(try await client.delete("/v1/webhooks/endpoints/\(endpoint)").status == 204)
                #expect(try await client.delete("/v1/webhooks/endpoints/\(endpoint)").status == 404)

                let adminLog = try await Self.deliveries(fixture.admin, job: id, admin: true)
                #expect(adminLog.first?["tenant"] as? String == tenant)
                #expect(try await client.get("/v1/admin/webhooks/deliveries").status == 403)

                let again = try await client.post("/v1/webhooks/deliveries/\(delivery)/redeliver")
                #expect(again.status == 202)
                #expect(again["status"] as? String == "pending")
                let received = try await receiver.waitFor { $0.count >= 2 }
                #expect(received.count == 2)
                #expect(Set(received.map(\.webhookID)).count == 1)
                let after = try await Self.waitForDeliveries(client, job: id) { ($0.first?["attempts"] as? [Any])?.count == 2 }
                #expect(after.first?["status"] as? String == "delivered")

                let refused = try await client.post("/v1/webhooks/endpoints", json: ["url": "file:///etc/passwd", "events": ["job.unknown"]])
                #expect(refused.status == 400)
            }
        }
    }
}

extension GatewayClient {
    /// Polls the tenant's endpoint list until `condition` holds for the endpoint.
    func waitForEndpoint(_ id: String, until condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        var last: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            let endpoints = try await get("/v1/webhooks/endpoints")["endpoints"] as? [[String: Any]] ?? []
            last = endpoints.first { $0["id"] as? String == id } ?? [:]
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        return last
    }
}
