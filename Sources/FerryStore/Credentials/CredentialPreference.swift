import Foundation

/// Which of several stored credentials for one space answers it: the gateway session's own before the
/// tenant's, one naming the realm before one for any realm, then the newest, so that posting a
/// corrected credential takes effect without deleting the old one first.
enum CredentialPreference {
    static func isBetter(_ a: CredentialRecord, than b: CredentialRecord) -> Bool {
        if (a.persistence == .session) != (b.persistence == .session) { return a.persistence == .session }
        if (a.space.realm != nil) != (b.space.realm != nil) { return a.space.realm != nil }
        if a.createdMicros != b.createdMicros { return a.createdMicros > b.createdMicros }
        return a.id.uuidString > b.id.uuidString
    }
}
