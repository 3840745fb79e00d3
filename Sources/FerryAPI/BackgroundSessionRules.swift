import FerryModel
import Foundation

/// What a job in a background session may be, and what it takes from the session: the seeds'
/// restrictions on background sessions (BG-04, TT-03, UP-13, RD-07), and the session's settings
/// that become the job's (BG-05, BG-06, BG-16, BG-18).
enum BackgroundSessionRules {
    /// Adds a problem for each rule `job` breaks, fields prefixed with `prefix` (`jobs.3.` in a
    /// batch); when it breaks none, gives it the session's settings.
    static func apply(
        to job: inout JobSpecification, session: BackgroundSettings, prefix: String = "", now: Date = Date(),
        errors: inout [Problem.FieldError]
    ) {
        let before = errors.count
        func problem(_ field: String, _ message: String) { errors.append(.init(field: prefix + field, message: message)) }
        if job.kind == .data {
            problem("kind", "a background session runs download and upload jobs only, not data jobs (BG-04, TT-03)")
        }
        let scheme = URLComponents(string: job.request.url)?.scheme?.lowercased()
        if scheme != "http", scheme != "https" {
            problem("request.url", "a background session transfers http and https URLs only (BG-04)")
        }
        if case .inline? = job.request.body {
            problem("request.body", "a background session sends a body from a blob or another job's content only, as the seeds send files only (UP-13)")
        }
        if !job.policies.followRedirects {
            problem("redirects.follow", "a background session always follows redirects (RD-07)")
        }
        if job.policies.decisions?.redirect == .ask {
            problem("decisions.redirect", "a background session always follows redirects, without asking (RD-07, BG-04)")
        }
        guard errors.count == before else { return }

        if session.discretionary { job.policies.discretionary = true }
        if let sessionStart = session.notBefore {
            // The later of the two: a job never starts before its session allows (BG-18).
            if let own = job.policies.notBefore, own >= sessionStart {} else { job.policies.notBefore = sessionStart }
        }
        if session.sendsLaunchEvents, job.policies.callbackURL == nil { job.policies.callbackURL = session.callbackURL }
        job.policies.retryNetworkErrorsUntil = JobView.timestamp(now.addingTimeInterval(session.resourceTimeout))
    }
}
