import FerryMetrics
import FerryModel
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `/v1/jobs` for a tenant's own jobs, and the same reads and controls under `/v1/admin/jobs` for
/// every tenant's. A tenant asking for another tenant's job gets the same 404 as for a job that does
/// not exist.
struct JobRoutes {
    let jobs: JobStore
    /// A job in a background session follows the session's rules (`BackgroundSessionRules`).
    let sessions: SessionStore
    /// The tenant's storage standing, which a job's `expected_bytes` must fit in (BG-19).
    let storage: BlobStore
    let files: GatewayFiles
    let urlPolicy: OutboundURLPolicy
    /// Waits for a job's end for a `Prefer: wait` submission.
    let endWait: JobEndWait
    /// Counts the jobs a cancel ends at once (a running job's end is its worker's to count).
    let metrics: GatewayMetrics
    let recentJobs = RecentJobs()

    func addTenantRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.post("/jobs") { request, context in
            let tenant = try context.requireTenant()
            let (submission, bytes) = try await JSONBody.decode(JobSubmission.self, from: request, context: context)
            var job = try submission.validated(urlPolicy: urlPolicy)
            job.policies.traceContext = RequestTraceContext.of(request)
            var one = [job]
            try await applySessionRules(to: &one, tenant: tenant, batch: false)
            try await checkExpectedBytes(one, tenant: tenant)
            job = one[0]
            let key = try Self.idempotencyKey(request)
            let submitted = try await jobs.submit(job, tenant: tenant, idempotencyKey: key, bodyDigest: JobStore.digest(bytes))
            var headers: HTTPFields = [:]
            let record: JobRecord
            switch submitted {
            case .created(let created):
                record = created
                headers[.location] = "/v1/jobs/\(created.id.uuidString.lowercased())"
            case .replayed(let replayed):
                record = replayed
                headers[HTTPField.Name("Idempotent-Replayed")!] = "true"
            }
            // The client would rather have the finished job than a link to follow (RFC 7240 §4.3).
            if let wait = PreferWait(fields: request.headers[values: HTTPField.Name("Prefer")!]),
               let finished = try await endWait.finished(record.id, tenant: tenant, within: .seconds(wait.seconds)) {
                headers[HTTPField.Name("Preference-Applied")!] = "wait=\(wait.seconds)"
                return EditedResponse(status: .ok, headers: headers, response: SubmittedJobView(finished, files: files))
            }
            let status: HTTPResponse.Status = if case .replayed = submitted { .ok } else { .created }
            return EditedResponse(status: status, headers: headers, response: SubmittedJobView(record, files: files))
        }
        group.post("/jobs/batch") { request, context in
            let tenant = try context.requireTenant()
            let (submission, bytes) = try await JSONBody.decode(JobBatchSubmission.self, from: request, context: context)
            let traceContext = RequestTraceContext.of(request)
            var specifications = try submission.validated(urlPolicy: urlPolicy).map { job in
                var job = job
                job.policies.traceContext = traceContext
                return job
            }
            try await applySessionRules(to: &specifications, tenant: tenant, batch: true)
            try await checkExpectedBytes(specifications, tenant: tenant)
            let key = try Self.idempotencyKey(request)
            switch try await jobs.submitBatch(specifications, tenant: tenant, idempotencyKey: key, bodyDigest: JobStore.digest(bytes)) {
            case .created(let records):
                return EditedResponse(status: .created, response: JobBatchView(jobs: records.map { JobView($0) }))
            case .replayed(let records):
                return EditedResponse(
                    status: .ok, headers: [HTTPField.Name("Idempotent-Replayed")!: "true"], response: JobBatchView(jobs: records.map { JobView($0) }))
            }
        }
        addReadsAndControls(to: group, scope: { .tenant(try $0.requireTenant()) }, showTenant: false)
        @Sendable func content(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            guard let job = try await jobs.job(id, scope: .tenant(tenant)) else { throw Problem.notFound("job \(id.lowercasedString)") }
            if job.result?.expired == true {
                throw Problem(.gone, code: "content_expired", "job \(id)'s content passed its retention and was removed")
            }
            guard job.state == .succeeded, let result = job.result, let path = files.absolute(result.file) else {
                throw Problem(.conflict, code: "job_content_unavailable", "a \(job.state.rawValue) job has no content; wait until it succeeded")
            }
            return try await FileContent.response(path: path, result: result, request: request, context: context)
        }
        group.get("/jobs/{id}/content") { request, context in try await content(request, context) }
        // The same headers (size, ETag, type) without the body: a client checks before it downloads.
        group.head("/jobs/{id}/content") { request, context in try await content(request, context).createHeadResponse() }
        group.delete("/jobs/{id}") { _, context in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            let file = try await jobs.delete(id, scope: .tenant(tenant))
            recentJobs.forget(id)
            if let file, let path = files.absolute(file) { files.spares.recycle(path) }
            return HTTPResponse.Status.noContent
        }
    }

    /// Jobs in a background session follow its rules and take its settings; a 400 lists every job
    /// that breaks one. A session that is not the tenant's is a 404 here, as the insert would say.
    private func applySessionRules(to specifications: inout [JobSpecification], tenant: UUID, batch: Bool) async throws {
        var settings: [UUID: BackgroundSettings?] = [:]
        for id in Set(specifications.compactMap(\.sessionID)) {
            guard let session = try await sessions.session(id, tenant: tenant) else {
                throw Problem(.notFound, code: "session_not_found", "session \(id.lowercasedString) was not found")
            }
            settings[id] = session.settings.background
        }
        var errors: [Problem.FieldError] = []
        let now = Date()
        for index in specifications.indices {
            guard let id = specifications[index].sessionID, case let background?? = settings[id] else { continue }
            BackgroundSessionRules.apply(
                to: &specifications[index], session: background, prefix: batch ? "jobs.\(index)." : "", now: now, errors: &errors)
        }
        if !errors.isEmpty { throw Problem.invalid(errors) }
    }

    /// Jobs that say how many bytes they expect (BG-19) are refused when those do not fit in the
    /// tenant's storage quota as it stands, reservations of its unfinished jobs included. Checked
    /// here, before the insert: two submissions at once may both fit (the runner still holds each
    /// download to the room left when it starts).
    private func checkExpectedBytes(_ specifications: [JobSpecification], tenant: UUID) async throws {
        let expected = specifications.reduce(Int64(0)) { $0 + ($1.policies.expectedBytes ?? 0) }
        guard expected > 0, let standing = try await storage.storageStanding(tenant: tenant), expected > standing.allowance else { return }
        throw Problem(StorageQuota.exceeded(standing, adding: expected, what: specifications.count == 1 ? "the job's expected_bytes" : "the jobs' expected_bytes"))
    }

    func addAdminRoutes(to group: RouterGroup<GatewayRequestContext>) {
        addReadsAndControls(to: group, scope: { context in
            try context.requireAdmin()
            return .everyTenant
        }, showTenant: true)
    }

    private func addReadsAndControls(
        to group: RouterGroup<GatewayRequestContext>, scope: @escaping @Sendable (GatewayRequestContext) throws -> JobStore.Scope, showTenant: Bool
    ) {
        group.get("/jobs") { request, context in
            let scope = try scope(context)
            let (state, urlContains, limit, cursor) = try Self.listParameters(request)
            let page = try await jobs.jobs(scope: scope, state: state, urlContains: urlContains, limit: limit, after: cursor)
            return JobPage(jobs: page.jobs.map { JobView($0, showTenant: showTenant) }, nextCursor: page.next?.token)
        }
        group.get("/jobs/{id}") { _, context -> Response in
            let scope = try scope(context)
            let id = try TenantRoutes.id(context, "id")
            let encoder = context.responseEncoder
            let body = try await recentJobs.body(id, showsTenant: showTenant, scope: scope) {
                guard let job = try await jobs.job(id, scope: scope) else { return nil }
                return (ByteBuffer(data: try encoder.encode(JobView(job, showTenant: showTenant))), job.tenantID)
            }
            guard let body else { throw Problem.notFound("job \(id.lowercasedString)") }
            return Self.json(body)
        }
        group.get("/jobs/{id}/attempts") { _, context in
            let scope = try scope(context)
            let id = try TenantRoutes.id(context, "id")
            guard let attempts = try await jobs.attempts(of: id, scope: scope) else { throw Problem.notFound("job \(id.lowercasedString)") }
            return JobAttemptList(attempts)
        }
        for (action, event) in [("cancel", JobEvent.cancel), ("pause", .pause), ("resume", .resume)] {
            group.post("/jobs/{id}/\(action)") { _, context in
                let scope = try scope(context)
                let id = try TenantRoutes.id(context, "id")
                let job = try await jobs.control(id, event: event, scope: scope)
                // After the change: a read racing it may have remembered the job as it was.
                recentJobs.forget(id)
                if job.state == .cancelled, job.stopRequest == nil { metrics.jobFinished(state: .cancelled, errorCode: job.errorCode) }
                // A running job stops when its worker sees the request: accepted, not yet done.
                let status: HTTPResponse.Status = job.stopRequest == nil ? .ok : .accepted
                return EditedResponse(status: status, response: JobView(job, showTenant: showTenant))
            }
        }
    }

    static func json(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: body))
    }

    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
        guard (1...255).contains(key.count), key.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw Problem.invalid([.init(field: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters")])
        }
        return key
    }

    static func listParameters(_ request: Request) throws -> (JobState?, String?, Int, JobCursor?) {
        let query = request.uri.queryParameters
        var errors: [Problem.FieldError] = []
        var state: JobState?
        if let text = query["state"].map(String.init) {
            state = JobState(rawValue: text)
            if state == nil {
                errors.append(.init(field: "state", message: "must be one of \(JobState.allCases.map(\.rawValue).joined(separator: ", "))"))
            }
        }
        // As long as a URL may be; NUL is refused here as in every JSON body (PostgreSQL text cannot hold it).
        var urlContains: String?
        if let text = query["url_contains"].map(String.init) {
            if text.isEmpty || text.utf8.count > SubmittedURL.maximumLength || text.utf8.contains(0) {
                errors.append(.init(field: "url_contains", message: "must be 1 to \(SubmittedURL.maximumLength) bytes without NUL"))
            } else {
                urlContains = text
            }
        }
        let page = PageParameters(request, errors: &errors)
        guard errors.isEmpty else { throw Problem.invalid(errors) }
        return (state, urlContains, page.limit, page.cursor)
    }
}
