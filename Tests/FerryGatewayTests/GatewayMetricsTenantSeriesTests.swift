@testable import FerryMetrics
import Foundation
import Testing

/// The `tenant` label stays bounded: past the limit, tenants share one series (`TenantSeries`).
@Suite("Gateway metrics: tenant series")
struct GatewayMetricsTenantSeriesTests {
    @Test("the first tenants get series of their own; the ones after the limit add up under tenant=\"other\"")
    func tenantsPastTheLimitShareOneSeries() throws {
        let exposition = PrometheusExposition()
        let metrics = GatewayMetrics(factory: exposition.factory, tenantSeriesLimit: 2)
        let tenants = (0..<5).map { _ in UUID() }
        for (index, tenant) in tenants.enumerated() {
            metrics.attemptStarted(kind: .download, attempt: 1)
            metrics.attemptFinished(
                kind: .download, tenant: tenant, outcome: "succeeded", duration: .milliseconds(20), bytesReceived: Int64(100 * (index + 1)),
                bytesSent: 0)
        }
        // A tenant with a series of its own keeps it.
        metrics.attemptStarted(kind: .download, attempt: 2)
        metrics.attemptFinished(
            kind: .download, tenant: tenants[0], outcome: "succeeded", duration: .seconds(1), bytesReceived: 1, bytesSent: 0)

        let parsed = try ParsedMetrics.parse(String(decoding: exposition.text(), as: UTF8.self))
        let received = parsed.samples("ferry_transfer_received_bytes_total")
        let ownSeries = tenants.prefix(2).map { $0.uuidString.lowercased() }
        #expect(Set(received.compactMap { $0.labels["tenant"] }) == Set(ownSeries + ["other"]))
        #expect(parsed.value("ferry_transfer_received_bytes_total", ["tenant": tenants[0].uuidString.lowercased()]) == 101)
        #expect(parsed.value("ferry_transfer_received_bytes_total", ["tenant": tenants[1].uuidString.lowercased()]) == 200)
        #expect(parsed.value("ferry_transfer_received_bytes_total", ["tenant": "other"]) == Double(300 + 400 + 500))
        #expect(parsed.value("ferry_jobs_started_total", ["kind": "download"]) == 5, "attempt 2 is no new job")
        #expect(parsed.value("ferry_transfers_running") == 0)
        #expect(parsed.value("ferry_job_attempt_duration_seconds_count", ["kind": "download", "outcome": "succeeded"]) == 6)
        #expect(parsed.value("ferry_job_attempt_duration_seconds_bucket", ["kind": "download", "outcome": "succeeded", "le": "0.05"]) == 5)
    }
}
