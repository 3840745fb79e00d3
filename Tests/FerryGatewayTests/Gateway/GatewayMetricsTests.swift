import Foundation
import Testing
import URLLoadingTestSupport

/// `GET /metrics` of a real ferryd after real jobs and webhook deliveries, read with Prometheus's
/// reference text parser (`ParsedMetrics`): families, types, labels and values.
@Suite("Gateway metrics", .timeLimit(.minutes(5)))
struct GatewayMetricsTests {
    /// Polls `/metrics` until `condition` holds for the parsed text (a counter is written just after
    /// the state the test waited for), or 30 s pass; returns the last parse either way.
    static func metrics(
        _ fixture: GatewayFixture, until condition: (ParsedMetrics) -> Bool = { _ in true }
    ) async throws -> ParsedMetrics {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let reply = try await fixture.admin.with(key: nil).get("/metrics")
            #expect(reply.status == 200)
            #expect(reply.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
            let parsed = try ParsedMetrics.parse(reply.text)
            if condition(parsed) || ContinuousClock.now >= deadline { return parsed }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test("jobs, bytes per tenant, attempts, webhook deliveries, pool waits and API latency, as Prometheus parses them")
    func metricsAfterRealJobs() async throws {
        try await WebhookReceiver.withRunning { receiver in
            try await GatewayFixture.with { fixture in
                // The first delivery gets a 500 and is retried; the next ones get 204.
                receiver.script([.status(.internalServerError)])
                let (downloaderID, downloader) = try await fixture.tenant()
                let (uploaderID, uploader) = try await fixture.tenant()
                let (_, other) = try await fixture.tenant()

                let downloaded = try await downloader.submit([
                    "kind": "download", "request": ["url": fixture.origin.url("/bytes/5000")], "callback": ["url": receiver.url()],
                ])
                let body = Data(OriginServer.patternBytes(count: 70_000))
                let uploaded = try await uploader.submit([
                    "kind": "upload", "request": ["url": fixture.origin.url("/echo"), "body": ["base64": body.base64EncodedString()]],
                ])
                let missing = try await other.submit(["kind": "download", "request": ["url": fixture.origin.url("/status/404")]])
                // Paused while it runs, then cancelled while paused: the cancel ends it at once (API).
                let slow = try await other.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/2000000?pace_ms=50")]])
                _ = try await other.waitForState(slow, ["running"])
                #expect(try await other.post("/v1/jobs/\(slow)/pause").status == 202)
                _ = try await other.waitForState(slow, ["paused"])
                #expect(try await other.post("/v1/jobs/\(slow)/cancel").status == 200)

                #expect(try await downloader.waitForState(downloaded, ["succeeded", "failed"])["state"] as? String == "succeeded")
                let upload = try await uploader.waitForState(uploaded, ["succeeded", "failed"])
                #expect(upload["state"] as? String == "succeeded", "\(upload)")
                let echoed = try #require((upload["result"] as? [String: Any])?["size"] as? Int)
                let failure = try await other.waitForState(missing, ["succeeded", "failed"])
                #expect(failure["state"] as? String == "failed")
                #expect((failure["error"] as? [String: Any])?["code"] as? String == "http_error")
                // No route: labelled `unmatched`, not with its path.
                #expect(try await downloader.get("/v1/no-such-route/\(downloaded)").status == 404)
                let deliveries = try await GatewayWebhookTests.waitForDeliveries(downloader, job: downloaded) {
                    !$0.isEmpty && $0.allSatisfy { $0["status"] as? String == "delivered" }
                }

                let metrics = try await Self.metrics(fixture) {
                    $0.value("ferry_webhook_deliveries_total", ["outcome": "delivered"]) == Double(deliveries.count)
                        && $0.value("ferry_transfers_running") == 0
                }

                // Each family is there with its type and help text.
                let types: [String: String] = [
                    "ferry_jobs": "gauge", "ferry_queue_oldest_job_age_seconds": "gauge", "ferry_transfers_running": "gauge",
                    "ferry_jobs_started": "counter", "ferry_jobs_finished": "counter", "ferry_job_attempts": "counter",
                    "ferry_job_attempt_duration_seconds": "histogram", "ferry_transfer_received_bytes": "counter",
                    "ferry_transfer_sent_bytes": "counter", "ferry_webhook_deliveries": "counter",
                    "ferry_database_pool_wait_seconds": "histogram", "ferry_http_request_duration_seconds": "histogram",
                    "ferry_http_requests": "counter", "ferry_http_active_requests": "gauge",
                    "urlloading_requests": "counter", "urlloading_connections": "counter",
                    "urlloading_request_phase_seconds": "histogram",
                ]
                for (name, type) in types {
                    let family = metrics[name]
                    #expect(family?.type == type, "\(name): \(family.map { "\($0.type)" } ?? "missing")")
                    #expect(family?.help.isEmpty == false, "\(name) has a HELP line")
                }

                // The queue, from the database at scrape time.
                #expect(metrics.value("ferry_jobs", ["state": "succeeded"]) == 2)
                #expect(metrics.value("ferry_jobs", ["state": "failed"]) == 1)
                #expect(metrics.value("ferry_jobs", ["state": "cancelled"]) == 1)
                #expect(metrics.value("ferry_jobs", ["state": "queued"]) == 0)
                #expect(metrics.value("ferry_queue_oldest_job_age_seconds") == 0, "nothing waits to run")

                // Bytes per tenant: exactly what the jobs moved.
                #expect(metrics.value("ferry_transfer_received_bytes_total", ["tenant": downloaderID]) == 5000)
                #expect(metrics.value("ferry_transfer_sent_bytes_total", ["tenant": uploaderID]) == 70_000)
                #expect(metrics.value("ferry_transfer_received_bytes_total", ["tenant": uploaderID]) == Double(echoed))
                #expect(metrics.value("ferry_transfer_sent_bytes_total", ["tenant": downloaderID]) == nil, "a download sends no body")

                // Jobs and attempts by outcome; the failed job under its error code.
                #expect(metrics.value("ferry_jobs_started_total", ["kind": "download"]) == 3)
                #expect(metrics.value("ferry_jobs_started_total", ["kind": "upload"]) == 1)
                #expect(metrics.value("ferry_jobs_finished_total", ["outcome": "succeeded", "error_code": "none"]) == 2)
                #expect(metrics.value("ferry_jobs_finished_total", ["outcome": "failed", "error_code": "http_error"]) == 1)
                #expect(metrics.value("ferry_jobs_finished_total", ["outcome": "cancelled", "error_code": "cancelled"]) == 1)
                #expect(metrics.value("ferry_job_attempts_total", ["outcome": "succeeded"]) == 2)
                #expect(metrics.value("ferry_job_attempts_total", ["outcome": "failed"]) == 1)
                #expect(metrics.value("ferry_job_attempts_total", ["outcome": "paused"]) == 1)
                let succeededDownloads = ["kind": "download", "outcome": "succeeded"]
                #expect(metrics.value("ferry_job_attempt_duration_seconds_count", succeededDownloads) == 1)
                #expect(metrics.value("ferry_job_attempt_duration_seconds_bucket", succeededDownloads.merging(["le": "+Inf"]) { $1 }) == 1)

                // The engine, per request: the download, the upload and the 404 completed (a response
                // arrived), the paused download was stopped; webhook deliveries are the engine's
                // requests too, hence at least.
                #expect((metrics.value("urlloading_requests_total", ["scheme": "http", "outcome": "completed"]) ?? 0) >= 3)
                #expect((metrics.value("urlloading_requests_total", ["scheme": "http", "outcome": "stopped"]) ?? 0) >= 1)
                #expect(metrics.value("urlloading_requests_total", ["scheme": "https", "outcome": "failed"]) == 0)
                #expect((metrics.value("urlloading_connections_total", ["connection": "new"]) ?? 0) >= 1)
                let completedRequests = metrics.value("urlloading_requests_total", ["scheme": "http", "outcome": "completed"]) ?? 0
                #expect(metrics.value("urlloading_request_phase_seconds_count", ["phase": "total"]) == completedRequests)
                #expect((metrics.value("urlloading_request_phase_seconds_count", ["phase": "wait"]) ?? 0) >= completedRequests)

                // Webhooks: the 500 is a retry, then the deliveries went through.
                #expect(metrics.value("ferry_webhook_deliveries_total", ["outcome": "retrying"]) == 1)
                #expect(metrics.value("ferry_webhook_deliveries_total", ["outcome": "delivered"]) == Double(deliveries.count))

                // The pool: the workers' and the API's transactions waited for connections.
                #expect((metrics.value("ferry_database_pool_wait_seconds_count") ?? 0) > 0)

                // The API by route template, never by concrete path.
                let submitted = ["method": "POST", "route": "/v1/jobs", "status": "201"]
                #expect(metrics.value("ferry_http_request_duration_seconds_count", submitted) == 4)
                #expect(metrics.value("ferry_http_requests_total", submitted) == 4)
                let routes = Set(metrics.samples("ferry_http_request_duration_seconds_count").compactMap { $0.labels["route"] })
                #expect(routes.contains("/v1/jobs/{id}"))
                #expect(metrics.value("ferry_http_requests_total", ["method": "GET", "route": "unmatched", "status": "404"]) == 1)
                #expect(!routes.contains { $0.contains("no-such-route") })
                for id in [downloaded, uploaded, missing, slow] {
                    #expect(!metrics.families.values.contains { $0.samples.contains { $0.labels.values.contains { $0.contains(id) } } })
                }
            }
        }
    }

    @Test("a job held back by its tenant's running limit is queued: ferry_jobs counts it and the oldest job's wait grows")
    func queuedJobWaits() async throws {
        try await GatewayFixture.with { fixture in
            let (_, key) = try await fixture.admin.createTenant("one-at-a-time", extra: ["max_running_jobs": 1])
            let client = fixture.admin.with(key: key)
            let slow: [String: Any] = ["kind": "download", "request": ["url": fixture.origin.url("/bytes/2000000?pace_ms=50")]]
            let running = try await client.submit(slow)
            _ = try await client.waitForState(running, ["running"])
            let waiting = try await client.submit(slow)

            let first = try await Self.metrics(fixture) { ($0.value("ferry_queue_oldest_job_age_seconds") ?? 0) > 0 }
            #expect(first.value("ferry_jobs", ["state": "queued"]) == 1)
            #expect(first.value("ferry_jobs", ["state": "running"]) == 1)
            #expect(first.value("ferry_transfers_running") == 1)
            let age = try #require(first.value("ferry_queue_oldest_job_age_seconds"))
            #expect(age > 0)
            let later = try await Self.metrics(fixture) { ($0.value("ferry_queue_oldest_job_age_seconds") ?? 0) > age }
            #expect((later.value("ferry_queue_oldest_job_age_seconds") ?? 0) > age, "the same job waits longer at the next scrape")

            // Not left to run out its minutes at the end of the test.
            for id in [running, waiting] { _ = try await client.post("/v1/jobs/\(id)/cancel") }
        }
    }
}
