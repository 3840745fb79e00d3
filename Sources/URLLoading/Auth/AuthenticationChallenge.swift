/// A request for authentication, as the delegate sees it (AU-04).
public struct AuthenticationChallenge: Sendable, CustomStringConvertible {
    public var protectionSpace: ProtectionSpace
    /// The credential the engine would use: the one that was just rejected (AU-19), or the storage's
    /// default for the space.
    public var proposedCredential: Credential?
    /// How many times a credential for this space has already failed in this task (AU-19, AU-20).
    public var previousFailureCount: Int
    /// The 401/407 response that raised the challenge; nil for connection-level challenges.
    public var failureResponse: TransferResponse?
    /// The error that raised the challenge, if any (a TLS failure, for instance).
    public var error: TransferError?

    public init(protectionSpace: ProtectionSpace, proposedCredential: Credential? = nil, previousFailureCount: Int = 0,
                failureResponse: TransferResponse? = nil, error: TransferError? = nil) {
        self.protectionSpace = protectionSpace
        self.proposedCredential = proposedCredential
        self.previousFailureCount = previousFailureCount
        self.failureResponse = failureResponse
        self.error = error
    }

    public var description: String {
        "AuthenticationChallenge(\(protectionSpace), previous failures: \(previousFailureCount))"
    }
}

/// The answer to a challenge (AU-12 ... AU-16, AU-23).
public enum ChallengeDisposition: Sendable, Hashable {
    /// Authenticate with this credential (AU-12); for server trust, trust the server (TLS-07).
    case useCredential(Credential)
    /// Go on without authenticating: the 401 becomes the response, or the connection fails (AU-13).
    case continueWithoutCredential
    /// As if there were no delegate: the credential storage's default, else continue without (AU-14, AU-22);
    /// for server trust, default evaluation (TLS-02).
    case performDefaultHandling
    /// Refuse this space; another space the server offered may be asked next (AU-15).
    case rejectProtectionSpace
    /// Cancel the task (AU-16, TLS-07).
    case cancel
}
