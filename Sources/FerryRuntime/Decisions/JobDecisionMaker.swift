import FerryModel
import FerryVault
import Foundation
import Synchronization
import URLLoading

/// The engine session delegate of one attempt of a job that asks for decisions (`decisions: ask`).
///
/// It makes only decisions (the runner reads the task's events itself). Asked for a decision its job
/// leaves to the client, it looks for a stored answer under the decision's id and applies it at once;
/// without one it records the decision and cancels the transfer, and the runner ends the attempt in
/// waiting_for_decision. Nothing waits in memory: the answer may come hours later, to another ferryd.
/// Decisions the job does not ask about get what the engine does without a delegate.
final class JobDecisionMaker: SessionDelegate {
    /// Why the maker stopped the transfer.
    enum Stop: Sendable, Equatable {
        case asked(PendingDecision)
        /// A stored answer could not be applied (its vault credential is gone).
        case failed(code: String, message: String)
    }

    let policy: DecisionPolicy
    private let answers: [String: StoredDecisionAnswer]
    private let credentials: DecisionCredentials?
    private let tenant: UUID
    private let job: UUID
    /// The job's request, which its response decision's id is made from.
    private let request: URL

    private struct State {
        var stop: Stop?
        /// Redirect decisions met so far in this attempt: the next one's hop number.
        var redirectHops = 0
        var refusedRedirect: String?
    }

    private let state = Mutex(State())

    init(
        policy: DecisionPolicy, answers: [String: StoredDecisionAnswer], credentials: DecisionCredentials?, tenant: UUID, job: UUID,
        request: URL
    ) {
        self.policy = policy
        self.answers = answers
        self.credentials = credentials
        self.tenant = tenant
        self.job = job
        self.request = request
    }

    var receivesTaskEvents: Bool { false }

    var stop: Stop? { state.withLock { $0.stop } }

    /// The target of a redirect an answer refused, if one did.
    var refusedRedirect: String? { state.withLock { $0.refusedRedirect } }

    private func ask(_ decision: PendingDecision) {
        state.withLock { state in
            if state.stop == nil { state.stop = .asked(decision) }
        }
    }

    // MARK: - Redirects (RD-02, RD-03)

    func session(_ session: Session, task: SessionTask, willPerformRedirection response: TransferResponse,
                 newRequest: TransferRequest) async -> RedirectDisposition {
        guard policy.asks(.redirect) else { return .follow(newRequest) }
        let hop = state.withLock { state in
            defer { state.redirectHops += 1 }
            return state.redirectHops
        }
        let decision = PendingDecision.redirect(hop: hop, to: newRequest.url, response: response)
        guard let answer = answers[decision.id] else {
            ask(decision)
            return .cancel
        }
        switch answer.disposition {
        case .change:
            guard let text = answer.url, let url = URL(string: text) else { return .follow(newRequest) }
            var changed = newRequest
            changed.url = url
            return .follow(changed)
        case .refuse:
            state.withLock { $0.refusedRedirect = newRequest.url.absoluteString }
            return .refuse
        default:
            return .follow(newRequest)
        }
    }

    // MARK: - The response (LC-05, LC-08)

    /// Every job runs as a download task, whose head the engine puts to the delegate only when asked to.
    var decidesDownloadResponses: Bool { policy.asks(.response) }

    func session(_ session: Session, downloadTask: DownloadTask, didReceive response: TransferResponse) async -> ResponseDisposition {
        guard policy.asks(.response) else { return .allow }
        let decision = PendingDecision.response(response, request: request)
        guard let answer = answers[decision.id] else {
            ask(decision)
            return .cancel
        }
        // `become_download` changed the job's kind when it was answered; a cancel ended the job then.
        return answer.disposition == .cancel ? .cancel : .allow
    }

    // MARK: - Challenges (AU-12..AU-16, TLS-07)

    /// Every challenge goes to the task-level method below, connection-level ones included.
    func session(_ session: Session, didReceive challenge: AuthenticationChallenge) async -> ChallengeDisposition? { nil }

    func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge) async -> ChallengeDisposition {
        let space = challenge.protectionSpace
        switch space.authenticationMethod {
        case .serverTrust:
            // Only a chain default evaluation refuses is the client's to judge; a valid one goes ahead.
            guard policy.asks(.serverTrust), let trust = space.serverTrust, trust.defaultEvaluationFailure != nil else {
                return .performDefaultHandling
            }
            let decision = PendingDecision.serverTrust(trust, port: space.port)
            guard let answer = answers[decision.id] else {
                ask(decision)
                return .cancel
            }
            return answer.disposition == .trust ? .useCredential(Credential(trust: trust)) : .rejectProtectionSpace
        case .httpBasic, .httpDigest, .bearer:
            guard policy.asks(.authChallenge) else { return .performDefaultHandling }
            let decision = PendingDecision.authChallenge(challenge)
            guard let answer = answers[decision.id] else {
                ask(decision)
                return .cancel
            }
            return await disposition(for: answer)
        default:
            return .performDefaultHandling
        }
    }

    private func disposition(for answer: StoredDecisionAnswer) async -> ChallengeDisposition {
        switch answer.disposition {
        case .useCredential:
            guard let stored = answer.credential, let credentials else { return fail("the answer's credential is missing") }
            do {
                guard let credential = try await credentials.credential(for: stored, tenant: tenant, job: job) else {
                    return fail("the vault credential the answer named no longer exists")
                }
                return .useCredential(credential)
            } catch {
                return fail("the answer's credential cannot be opened: \(error)")
            }
        case .continueWithoutCredential: return .continueWithoutCredential
        case .rejectProtectionSpace: return .rejectProtectionSpace
        case .cancel: return .cancel
        default: return .performDefaultHandling
        }
    }

    private func fail(_ message: String) -> ChallengeDisposition {
        state.withLock { state in
            if state.stop == nil { state.stop = .failed(code: "decision_credential_unavailable", message: message) }
        }
        return .cancel
    }
}
