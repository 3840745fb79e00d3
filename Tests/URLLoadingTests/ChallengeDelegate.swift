import Foundation
@testable import URLLoading

/// A delegate that records every challenge it is asked about and answers with `answer`.
final class ChallengeDelegate: SessionDelegate {
    /// One question the delegate was asked.
    struct Asked: Sendable {
        var challenge: AuthenticationChallenge
        /// Through the session-level method (AU-05), not the task-level one.
        var sessionLevel: Bool
    }

    let asked = Locked<[Asked]>([])
    let newStreamRequests = Locked(0)
    let answer: @Sendable (AuthenticationChallenge) async -> ChallengeDisposition
    let newStream: @Sendable () -> UploadBody.Stream?

    init(newStream: @escaping @Sendable () -> UploadBody.Stream? = { nil },
         answer: @escaping @Sendable (AuthenticationChallenge) async -> ChallengeDisposition) {
        self.answer = answer
        self.newStream = newStream
    }

    /// Answers every challenge with `credential`.
    convenience init(always credential: Credential) {
        self.init { _ in .useCredential(credential) }
    }

    var challenges: [AuthenticationChallenge] { asked.withLock { $0.map(\.challenge) } }
    var sessionLevelCalls: Int { asked.withLock { $0.filter(\.sessionLevel).count } }

    func session(_ session: Session, didReceive challenge: AuthenticationChallenge) async -> ChallengeDisposition? {
        asked.withLock { $0.append(Asked(challenge: challenge, sessionLevel: true)) }
        return nil
    }

    func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge) async
        -> ChallengeDisposition
    {
        asked.withLock { $0.append(Asked(challenge: challenge, sessionLevel: false)) }
        return await answer(challenge)
    }

    func session(_ session: Session, taskNeedsNewBodyStream task: SessionTask) async -> UploadBody.Stream? {
        newStreamRequests.withLock { $0 += 1 }
        return newStream()
    }
}
