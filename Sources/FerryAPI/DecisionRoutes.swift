import FerryMetrics
import FerryModel
import FerryStore
import FerryVault
import Foundation
import Hummingbird

/// `POST /v1/jobs/{id}/decision`: the client's answer to the decision its job waits for.
///
/// The answer is checked against the pending decision's kind (422 when it does not fit), its inline
/// credential sealed for this tenant and job, and then stored for the next attempt, which replays the
/// transfer to the decision and applies it; a `cancel` or a rejected certificate ends the job at once.
struct DecisionRoutes {
    let jobs: JobStore
    let credentials: DecisionCredentials?
    let urlPolicy: OutboundURLPolicy
    /// The job routes' cache of job views, forgotten once the answer changed the job.
    let recentJobs: RecentJobs
    /// Counts the jobs an answer ends at once (cancel, a rejected certificate).
    let metrics: GatewayMetrics

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.post("/jobs/{id}/decision") { request, context in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            let (submission, _) = try await JSONBody.decode(DecisionAnswerSubmission.self, from: request, context: context)
            guard let job = try await jobs.job(id, scope: .tenant(tenant)) else { throw Problem.notFound("job \(id.lowercasedString)") }
            guard job.state == .waitingForDecision, let decision = job.decision else { throw JobStore.notWaiting(id, state: job.state) }
            if let seen = submission.decisionID, seen != decision.id { throw JobStore.notWaiting(id, state: job.state) }
            let answer = try submission.validated(for: decision, urlPolicy: urlPolicy)
            if answer.disposition == .becomeDownload, job.kind != .data {
                throw DecisionAnswerSubmission.unfit([.init(
                    field: "disposition", message: "become_download turns a data job into a download; this \(job.kind.rawValue) job goes on with allow")])
            }
            let outcome = try await outcome(of: answer, to: decision, tenant: tenant, job: id)
            let answered = try await jobs.answerDecision(id, tenant: tenant, decisionID: decision.id, outcome)
            recentJobs.forget(id)
            if answered.state.isTerminal { metrics.jobFinished(state: answered.state, errorCode: answered.errorCode) }
            return JobView(answered)
        }
    }

    private func outcome(
        of answer: DecisionAnswerSubmission.Answer, to decision: PendingDecision, tenant: UUID, job: UUID
    ) async throws -> JobStore.DecisionOutcome {
        switch answer.disposition {
        case .cancel:
            return .end(.cancel, code: "cancelled", message: "cancelled by the answer to the \(decision.kind.rawValue) decision")
        case .reject:
            let server = "\(decision.host ?? "?"):\(decision.port ?? 0)"
            return .end(.fail, code: "server_trust_rejected", message: "the answer to the server_trust decision rejected the certificate of \(server)")
        default:
            break
        }
        var stored = StoredDecisionAnswer(disposition: answer.disposition, url: answer.url)
        if answer.inline != nil || answer.vaultID != nil {
            guard let credentials else {
                throw Problem(.serviceUnavailable, code: "vault_unavailable", "this gateway has no vault key, so it cannot keep credentials")
            }
            if let inline = answer.inline {
                stored.credential = try credentials.seal(inline, tenant: tenant, job: job)
            } else if let vaultID = answer.vaultID {
                guard try await credentials.vault.credential(id: vaultID, tenant: tenant) != nil else {
                    throw DecisionAnswerSubmission.unfit([.init(field: "credential.id", message: "the tenant has no vault credential \(vaultID)")])
                }
                stored.credential = StoredDecisionAnswer.StoredCredential(vaultID: vaultID)
            }
        }
        return .answer(decisionID: decision.id, stored)
    }
}
