import Foundation

/// One 401 or 407 put to the caller: each offered space in turn, until one is answered (AU-12 ... AU-16,
/// AU-22). Runs off the loop, so a slow answer (a person typing a password, AU-21) holds up nothing but
/// its own paused transfer.
struct ChallengeRound: Sendable {
    /// What the transfer does next.
    enum Outcome: Sendable {
        /// Send the request again with this credential (AU-12).
        case retry(AuthenticationAnswer)
        /// The 401/407 is the task's response (AU-13; also default handling without a credential, AU-22,
        /// and every space rejected, AU-15).
        case deliverResponse
        /// The task fails with `cancelled` (AU-16).
        case cancel
        case fail(TransferError)
    }

    let session: Session
    let task: SessionTask
    let offered: [OfferedSpace]
    let failures: [ProtectionSpace: Int]
    let rejected: [ProtectionSpace: Credential]
    let failureResponse: TransferResponse
    /// `user:password@` of the request's URL, for default handling of a server's space (AU-22).
    let urlCredential: Credential?

    func resolve() async -> Outcome {
        for offer in offered {
            let space = offer.space
            let stored = await session.defaultCredential(for: space, urlCredential: space.isProxy ? nil : urlCredential)
            // Never the one this space just rejected: that would only be rejected again.
            let usable = stored == rejected[space] ? nil : stored
            let challenge = AuthenticationChallenge(
                protectionSpace: space, proposedCredential: rejected[space] ?? stored,
                previousFailureCount: failures[space, default: 0], failureResponse: failureResponse)
            let disposition = await session.answer(challenge, for: task)
            let credential: Credential
            switch disposition {
            case .useCredential(let chosen):
                credential = chosen
            case .performDefaultHandling:
                guard let usable else { return .deliverResponse }
                credential = usable
            case .continueWithoutCredential:
                return .deliverResponse
            case .rejectProtectionSpace:
                continue
            case .cancel:
                return .cancel
            }
            do {
                return .retry(try AuthenticationAnswer(offer: offer, credential: credential))
            } catch {
                return .fail(error)
            }
        }
        return .deliverResponse
    }
}

extension Session {
    /// The delegate's answer to a challenge, however long it takes; default handling without a delegate.
    func answer(_ challenge: AuthenticationChallenge, for task: SessionTask) async -> ChallengeDisposition {
        await withCheckedContinuation { continuation in
            let now = challengeDisposition(for: task, challenge: challenge) { continuation.resume(returning: $0) }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// What default handling answers a space with (AU-14, AU-22): a credential this session kept
    /// (AU-03), else the storage's default for the space, else the one in the URL.
    func defaultCredential(for space: ProtectionSpace, urlCredential: Credential?) async -> Credential? {
        if let kept = keptCredentials.credential(for: space) { return kept }
        if let stored = await configuration.credentialStorage.defaultCredential(for: space) { return stored }
        let passwordMethods: [AuthenticationMethod] = [.httpBasic, .httpDigest]
        return passwordMethods.contains(space.authenticationMethod) ? urlCredential : nil
    }

    /// A credential was accepted for a space: kept as its persistence says (AU-02, AU-03). Kept by the
    /// session at once, so its next task finds it; a `.permanent` one also goes to the storage (and its
    /// persistence hook), except in an ephemeral session, which persists nothing (SES-03).
    func credentialWorked(_ credential: Credential, for space: ProtectionSpace) {
        guard credential.persistence != .none else { return }
        keptCredentials.keep(credential, for: space)
        guard credential.persistence == .permanent, configuration.kind != .ephemeral else { return }
        let storage = configuration.credentialStorage
        Task { await storage.set(credential, for: space) }
    }
}

/// The `.forSession` credentials a session's tasks used successfully, for that session only (AU-03).
final class SessionCredentials: Sendable {
    private let credentials = Locked([ProtectionSpace: Credential]())

    func credential(for space: ProtectionSpace) -> Credential? {
        credentials.withLock { $0[space] }
    }

    func keep(_ credential: Credential, for space: ProtectionSpace) {
        credentials.withLock { $0[space] = credential }
    }
}
