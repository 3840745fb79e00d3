import Foundation

/// Which decisions a job leaves to its client (`decisions` of a job, or of its gateway session as a
/// default), and how long an unanswered one may wait. Stored in `jobs.policies` and
/// `sessions.configuration`.
public struct DecisionPolicy: Sendable, Equatable, Codable {
    /// `ask`: the job stops in waiting_for_decision until the client answers; `default`: the engine
    /// decides as it does without a delegate (follow, stored credentials, default trust evaluation).
    public enum Mode: String, Sendable, Codable, CaseIterable {
        case ask
        case engine = "default"
    }

    public var authChallenge: Mode?
    public var redirect: Mode?
    public var serverTrust: Mode?
    /// The response head, before any of the body is stored (LC-05, LC-08).
    public var response: Mode?
    /// Seconds an unanswered decision waits before the job fails with `decision_timed_out`.
    public var timeoutSeconds: Int?

    public static let defaultTimeoutSeconds = 24 * 3600
    public static let timeoutRange = 1...(7 * 24 * 3600)

    public init(authChallenge: Mode? = nil, redirect: Mode? = nil, serverTrust: Mode? = nil, response: Mode? = nil, timeoutSeconds: Int? = nil) {
        self.authChallenge = authChallenge
        self.redirect = redirect
        self.serverTrust = serverTrust
        self.response = response
        self.timeoutSeconds = timeoutSeconds
    }

    package enum CodingKeys: String, CodingKey {
        case authChallenge = "auth_challenge"
        case redirect
        case serverTrust = "server_trust"
        case response
        case timeoutSeconds = "timeout_seconds"
    }

    /// The job's own choices, each falling back to its session's.
    package func over(_ session: DecisionPolicy?) -> DecisionPolicy {
        DecisionPolicy(
            authChallenge: authChallenge ?? session?.authChallenge, redirect: redirect ?? session?.redirect,
            serverTrust: serverTrust ?? session?.serverTrust, response: response ?? session?.response,
            timeoutSeconds: timeoutSeconds ?? session?.timeoutSeconds)
    }

    package func asks(_ kind: PendingDecision.Kind) -> Bool {
        switch kind {
        case .authChallenge: authChallenge == .ask
        case .redirect: redirect == .ask
        case .serverTrust: serverTrust == .ask
        case .response: response == .ask
        }
    }

    package var asksAnything: Bool { PendingDecision.Kind.allCases.contains(where: asks) }

    package var timeout: Int { timeoutSeconds ?? Self.defaultTimeoutSeconds }
}

/// `decisions` as clients write it, in a job or a session configuration, and its validation.
package struct DecisionsPart: Decodable {
    package var authChallenge: String?
    package var redirect: String?
    package var serverTrust: String?
    package var response: String?
    package var timeoutSeconds: Int?

    package enum CodingKeys: String, CodingKey {
        case authChallenge = "auth_challenge"
        case redirect
        case serverTrust = "server_trust"
        case response
        case timeoutSeconds = "timeout_seconds"
    }

    /// The policy, or nil with the problems added under `field` (`decisions`, `configuration.decisions`).
    package func validated(field: String, errors: inout [FieldError]) -> DecisionPolicy? {
        let before = errors.count
        func mode(_ name: String, _ text: String?) -> DecisionPolicy.Mode? {
            guard let text else { return nil }
            guard let mode = DecisionPolicy.Mode(rawValue: text) else {
                errors.append(.init(field: "\(field).\(name)", message: "must be ask or default"))
                return nil
            }
            return mode
        }
        let policy = DecisionPolicy(
            authChallenge: mode("auth_challenge", authChallenge), redirect: mode("redirect", redirect),
            serverTrust: mode("server_trust", serverTrust), response: mode("response", response), timeoutSeconds: timeoutSeconds)
        if let timeoutSeconds, !DecisionPolicy.timeoutRange.contains(timeoutSeconds) {
            errors.append(.init(
                field: "\(field).timeout_seconds",
                message: "must be from \(DecisionPolicy.timeoutRange.lowerBound) to \(DecisionPolicy.timeoutRange.upperBound) seconds (7 days)"))
        }
        return errors.count == before ? policy : nil
    }

    package init(authChallenge: String? = nil, redirect: String? = nil, serverTrust: String? = nil, response: String? = nil, timeoutSeconds: Int? = nil) {
        self.authChallenge = authChallenge
        self.redirect = redirect
        self.serverTrust = serverTrust
        self.response = response
        self.timeoutSeconds = timeoutSeconds
    }
}
