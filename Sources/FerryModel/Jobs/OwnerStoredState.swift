/// What the claim of a job found stored for the job's owner, read in the claim statement itself, so
/// that the outfitters' `prepare` need not query for what is not there: most jobs' sessions keep no
/// cookies and most tenants no server-trust or client-certificate credentials, and those two reads
/// before every job were two of the four statements a job cost (bench P3).
///
/// A job claimed after another job's end was recorded sees what that job stored (its cookies are
/// written before its end); jobs that overlap had no order before either.
public struct OwnerStoredState: Sendable, Equatable {
    /// The job's gateway session has unexpired cookies in `session_cookies`.
    public var cookies: Bool
    /// The tenant has server-trust or client-certificate credentials for this job's session or all.
    public var connectionCredentials: Bool

    public init(cookies: Bool, connectionCredentials: Bool) {
        self.cookies = cookies
        self.connectionCredentials = connectionCredentials
    }

    /// Nothing known: every outfitter reads.
    public static let unknown = OwnerStoredState(cookies: true, connectionCredentials: true)
}
