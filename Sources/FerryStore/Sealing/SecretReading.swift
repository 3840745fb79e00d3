import FerryVault

/// What a read of a row does with the values sealed in it (`SealedJobRequest`, `SealedResumeData`,
/// `SealedSessionConfiguration`).
package enum SecretReading: Sendable {
    /// Opens them: for the worker that sends them.
    case open(VaultKeyring)
    /// Leaves them sealed: header values read as `<redacted>` (which every view shows for them
    /// anyway), a proxy URL without its password, no resume data. For the API's views, event streams
    /// and webhook payloads, which never need a secret and so never fail for want of a key.
    case redact
}
