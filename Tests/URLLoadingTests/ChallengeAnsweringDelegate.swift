import Foundation
@testable import URLLoading

/// A delegate that answers authentication challenges with the closures it was given and records every
/// challenge each method saw, plus the tasks' events (to show a retried handshake adds none).
final class ChallengeAnsweringDelegate: SessionDelegate {
    /// The session-level method's answer; nil passes the challenge on to the task-level method (AU-05).
    let sessionAnswer: @Sendable (AuthenticationChallenge) async -> ChallengeDisposition?
    let taskAnswer: @Sendable (AuthenticationChallenge) async -> ChallengeDisposition
    let sessionChallenges = Locked<[AuthenticationChallenge]>([])
    let taskChallenges = Locked<[AuthenticationChallenge]>([])
    let completions = Locked<[TransferError?]>([])

    init(
        session: @escaping @Sendable (AuthenticationChallenge) async -> ChallengeDisposition? = { _ in nil },
        task: @escaping @Sendable (AuthenticationChallenge) async -> ChallengeDisposition = { _ in .performDefaultHandling }
    ) {
        sessionAnswer = session
        taskAnswer = task
    }

    func session(_ session: Session, didReceive challenge: AuthenticationChallenge) async -> ChallengeDisposition? {
        sessionChallenges.withLock { $0.append(challenge) }
        return await sessionAnswer(challenge)
    }

    func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge) async
        -> ChallengeDisposition {
        taskChallenges.withLock { $0.append(challenge) }
        return await taskAnswer(challenge)
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) async {
        completions.withLock { $0.append(error) }
    }

    var sessionLevel: [AuthenticationChallenge] { sessionChallenges.withLock { $0 } }
    var taskLevel: [AuthenticationChallenge] { taskChallenges.withLock { $0 } }

    /// Trusts whatever server the challenge names (TLS-07).
    static let trustServer: @Sendable (AuthenticationChallenge) async -> ChallengeDisposition? = { challenge in
        guard let trust = challenge.protectionSpace.serverTrust else { return .performDefaultHandling }
        return .useCredential(Credential(trust: trust))
    }
}
