import Foundation

/// The seeds' dispositions, by the decision kind each answers (AU-12..AU-16, RD-02, TLS-07, LC-08).
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
    // response (and cancel)
    case allow
    case becomeDownload = "become_download"

    package static func allowed(for kind: PendingDecision.Kind) -> [DecisionDisposition] {
        switch kind {
        case .authChallenge: [.useCredential, .performDefaultHandling, .continueWithoutCredential, .rejectProtectionSpace, .cancel]
        case .redirect: [.follow, .refuse, .change]
        case .serverTrust: [.trust, .reject]
        case .response: [.allow, .cancel, .becomeDownload]
        }
    }
}

/// An answer as stored in `jobs.decision_answers` under its decision's id, for the attempt that
/// replays to that decision. Holds no secret in the clear: an inline password is sealed.
package struct StoredDecisionAnswer: Sendable, Equatable, Codable {
    package var disposition: DecisionDisposition
    package var credential: StoredCredential?
    /// `change`: where the redirect goes instead.
    package var url: String?

    /// The credential of a `use_credential` answer: a vault credential's id, or an inline
    /// username and password sealed for this tenant and job (`VaultKeyring`).
    package struct StoredCredential: Sendable, Equatable, Codable {
        package var vaultID: UUID?
        package var keyID: String?
        /// `nonce | ciphertext | tag` of the JSON `{"username", "password"}`, base64.
        package var sealed: String?

        package enum CodingKeys: String, CodingKey {
            case vaultID = "vault_id"
            case keyID = "key_id"
            case sealed
        }

        package init(vaultID: UUID? = nil, keyID: String? = nil, sealed: String? = nil) {
            self.vaultID = vaultID
            self.keyID = keyID
            self.sealed = sealed
        }
    }

    package init(disposition: DecisionDisposition, credential: StoredCredential? = nil, url: String? = nil) {
        self.disposition = disposition
        self.credential = credential
        self.url = url
    }
}

/// The username and password of an inline answer, as sealed.
package struct InlineCredential: Codable {
    package var username: String
    package var password: String

    package init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}
