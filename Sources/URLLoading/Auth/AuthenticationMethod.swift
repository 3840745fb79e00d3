/// How a protection space wants the client to authenticate (AU-18).
///
/// `bearer` is our own addition: a token sent as `Authorization: Bearer`. NTLM and Negotiate are named so
/// that a challenge for them can be routed and answered (AU-05), even though the engine answers them only
/// with default handling.
public enum AuthenticationMethod: String, Sendable, Hashable, CaseIterable, Codable {
    case `default` = "default"
    case httpBasic = "basic"
    case httpDigest = "digest"
    case bearer = "bearer"
    case htmlForm = "html_form"
    case negotiate = "negotiate"
    case ntlm = "ntlm"
    case clientCertificate = "client_certificate"
    case serverTrust = "server_trust"

    /// Connection-level methods go to the session's delegate first, then the task's; every other method
    /// goes to the task's only (AU-05, AU-06, TLS-04, TLS-11).
    public var isConnectionLevel: Bool {
        switch self {
        case .negotiate, .ntlm, .clientCertificate, .serverTrust: true
        case .default, .httpBasic, .httpDigest, .bearer, .htmlForm: false
        }
    }
}
