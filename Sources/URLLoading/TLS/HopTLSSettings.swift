import Foundation

/// The TLS settings of one hop's server, as values: the option layer (`CurlRequestOptions`) sets them
/// after the session-wide ones, which they tighten or replace. Every hop has a new easy handle, so a
/// redirect to another host starts from the session-wide values, never from the previous host's.
struct HopTLSSettings {
    /// Public-key pins for this server (TLS-08, TLS-09), replacing the session's.
    var pinnedPublicKeys: String?
    /// The CAs trusted for this server with the session's extra CAs (TLS-02), replacing the latter.
    var trustedCAsPEM: String?
    /// The identity presented when the server asks for one (TLS-11, AU-17).
    var clientIdentity: ClientIdentity?
    /// The hop's own trust decisions accepted the connection: it must serve no other transfer.
    var isolatesConnection = false
    /// curl's host name check is off; the hook checks the name itself.
    var hookChecksHostName = false
    /// The hop's part in its TLS handshakes; nil when curl's own handling is all it needs.
    var hook: TLSHandshakeHook?
}
