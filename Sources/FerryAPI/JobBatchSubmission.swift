import FerryModel

/// The body of `POST /v1/jobs/batch`: up to `maximumJobs` job submissions, each written as for
/// `POST /v1/jobs`, accepted or refused together.
///
/// A client with many transfers (a list of URLs, a directory to upload) sends them in a few requests
/// and one commit each, instead of one request and one commit per job; aria2c's input file and
/// aria2's `system.multicall` serve the same need (`../shared/reference/peers.md`).
struct JobBatchSubmission: Decodable {
    static let maximumJobs = 1_000
    /// A batch of bad jobs could list thousands of problems; the first ones say what is wrong.
    static let maximumListedErrors = 100

    var jobs: [JobSubmission]?

    /// Every job validated, or a 400 listing each bad field as `jobs.<index>.<field>`.
    func validated(urlPolicy: OutboundURLPolicy) throws(Problem) -> [JobSpecification] {
        guard let jobs, !jobs.isEmpty else {
            throw Problem.invalid([.init(field: "jobs", message: "is required: an array of 1 to \(Self.maximumJobs) jobs")])
        }
        guard jobs.count <= Self.maximumJobs else {
            throw Problem.invalid([.init(
                field: "jobs", message: "holds \(jobs.count) jobs; a batch takes at most \(Self.maximumJobs), so send them in several")])
        }
        var specifications: [JobSpecification] = []
        specifications.reserveCapacity(jobs.count)
        var errors: [Problem.FieldError] = []
        var unlisted = 0
        for (index, job) in jobs.enumerated() {
            do {
                specifications.append(try job.validated(urlPolicy: urlPolicy))
            } catch {
                for fieldError in error.errors {
                    guard errors.count < Self.maximumListedErrors else { unlisted += 1; continue }
                    errors.append(.init(field: "jobs.\(index).\(fieldError.field)", message: fieldError.message))
                }
            }
        }
        if unlisted > 0 { errors.append(.init(field: "jobs", message: "and \(unlisted) more problems not listed")) }
        guard errors.isEmpty else { throw Problem.invalid(errors) }
        return specifications
    }
}
