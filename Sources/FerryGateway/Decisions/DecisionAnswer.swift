import Foundation

/// The seeds' dispositions, by the decision kind each answers (AU-12..AU-16, RD-02, TLS-07).
public enum DecisionDisposition: String, Sendable, Codable, CaseIterable {
    // auth_challenge
    case useCredential = "use_credential"
    case performDefaultHandling = "perform_default_handling"
    case continueWithoutCredential = "continue_without_credential"
    case rejectProtectionSpace = "reject_protection_space"
    case cancel
    // redirect
    case follow, refuse, change
    // server_trust
    case trust, reject

    static func allowed(for kind: PendingDecision.Kind) -> [DecisionDisposition] {
        switch kind {
        case .authChallenge: [.useCredential, .performDefaultHandling, .continueWithoutCredential, .rejectProtectionSpace, .cancel]
        case .redirect: [.follow, .refuse, .change]
        case .serverTrust: [.trust, .reject]
        }
    }
}

/// An answer as stored in `jobs.decision_answers` under its decision's id, for the attempt that
/// replays to that decision. Holds no secret in the clear: an inline password is sealed.
struct StoredDecisionAnswer: Sendable, Equatable, Codable {
    var disposition: DecisionDisposition
    var credential: StoredCredential?
    /// `change`: where the redirect goes instead.
    var url: String?

    /// The credential of a `use_credential` answer: a vault credential's id, or an inline
    /// username and password sealed for this tenant and job (`VaultKeyring`).
    struct StoredCredential: Sendable, Equatable, Codable {
        var vaultID: UUID?
        var keyID: String?
        /// `nonce | ciphertext | tag` of the JSON `{"username", "password"}`, base64.
        var sealed: String?

        enum CodingKeys: String, CodingKey {
            case vaultID = "vault_id"
            case keyID = "key_id"
            case sealed
        }
    }
}

/// The username and password of an inline answer, as sealed.
struct InlineCredential: Codable {
    var username: String
    var password: String
}
