import Foundation
import Testing

/// A job's `retention_days`: accepted within bounds, refused with the field named otherwise.
@Suite("Routes: content retention", .timeLimit(.minutes(2)))
struct RetentionRouteTests {
    @Test func retentionDaysIsCheckedAtSubmission() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let id = try await app.submit(tenant.key, RouteFixture.download(RouteFixture.unreachable, ["retention_days": 7]))
            #expect(try await app.sql("SELECT policies->>'retention_days' FROM jobs WHERE id = '\(id)'") == "7")
            for bad: Any in [0, 36_501, "7", 1.5] {
                app.expectProblem(
                    try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(RouteFixture.unreachable, ["retention_days": bad])),
                    400, "invalid_request", fields: ["retention_days"])
            }
        }
    }

    @Test func tenantContentRetentionIsCheckedAtCreation() async throws {
        try await RouteFixture.with { app in
            for bad: Any in [0, 36_501, -1, "7"] {
                app.expectProblem(
                    try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "r", "content_retention_days": bad]),
                    400, "invalid_request", fields: ["content_retention_days"])
            }
            let created = try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": "r", "content_retention_days": 30])
            #expect(created.status == 201)
            #expect(created["content_retention_days"] as? Int == 30)
        }
    }
}
