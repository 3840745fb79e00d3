import FerryClient
import FerrydTestSupport
import Foundation
import OpenAPIRuntime
import Testing
import URLLoading
import URLLoadingOpenAPI

/// The client swift-openapi-generator makes from the API document, over the engine's transport,
/// against a real ferryd: what ferryd answers decodes as the generated types, a tenant's view and
/// the admin's alike, and a refusal as the problem document the operation documents.
@Suite("the generated API client against a real ferryd")
struct GeneratedClientTests {
    static func client(_ fixture: GatewayCLIFixture, key: String, session: Session) throws -> Client {
        let serverURL = try #require(URL(string: fixture.server.baseURL))
        return Client(
            serverURL: serverURL, configuration: Configuration(dateTranscoder: .iso8601WithFractionalSeconds),
            transport: URLLoadingTransport(session: session), middlewares: [BearerAuthentication(apiKey: key)])
    }

    @Test func decodesWhatFerrydAnswers() async throws {
        try await GatewayCLIFixture.with { fixture in
            let session = try Session(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            let admin = try Self.client(fixture, key: fixture.adminKey, session: session)

            let created = try await admin.createTenant(body: .json(.init(name: "generated", maxQueuedJobs: 10))).created.body.json
            #expect(created.value1.name == "generated")
            #expect(created.value1.maxQueuedJobs == 10)
            #expect(created.value2.apiKey.hasPrefix("ferry_"))
            let tenant = try Self.client(fixture, key: created.value2.apiKey, session: session)

            let submission = Components.Schemas.JobSubmission(
                kind: .download, request: .init(url: fixture.origin.url("/bytes/100"), headers: .init(additionalProperties: ["X-Trace": "7"])))
            let id = try await tenant.submitJob(body: .json(submission)).created.body.json.id
            var job = try await tenant.getJob(path: .init(id: id)).ok.body.json
            let deadline = ContinuousClock.now + .seconds(60)
            while ![.succeeded, .failed, .cancelled].contains(job.state), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                job = try await tenant.getJob(path: .init(id: id)).ok.body.json
            }
            #expect(job.state == .succeeded)
            #expect(job.kind == .download)
            #expect(job.result?.size == 100)
            #expect(job.response?.status == 200)
            #expect(job.request.headers.additionalProperties.first { $0.key.lowercased() == "x-trace" }?.value == "7")
            #expect(job.tenant == nil, "a tenant's view has no tenant")
            #expect(job.finishedAt.map { $0 >= job.createdAt } == true)

            let page = try await tenant.listJobs(query: .init(state: .succeeded, limit: 5)).ok.body.json
            #expect(page.jobs.map(\.id) == [id])
            #expect(page.nextCursor == nil)

            let adminView = try await admin.adminGetJob(path: .init(id: id)).ok.body.json
            #expect(adminView.value2.tenant == created.value1.id)
            #expect(adminView.value1.id == id)

            switch try await tenant.getJob(path: .init(id: UUID().uuidString.lowercased())) {
            case .notFound(let refusal):
                let problem = try refusal.body.applicationProblemJson
                #expect(problem.code == "not_found")
                #expect(problem.status == 404)
            case let other:
                Issue.record("an unknown job answered \(other)")
            }
        }
    }
}
