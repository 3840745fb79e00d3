import Crypto
import Foundation
import URLLoading

/// A decision a job stopped at, as stored in `jobs.decision` and shown as the job's `decision`: what
/// the client must judge, and never a secret (no password, no Authorization or Cookie value).
///
/// `id` is derived from the decision's fingerprint (authentication: the protection space and how
/// often a credential for it failed; redirect: the hop and its target; server trust: host, port and
/// the leaf certificate's SHA-256). The answer is stored under it, and the replayed attempt, meeting
/// the same decision, computes the same id and finds it.
public struct PendingDecision: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case authChallenge = "auth_challenge"
        case redirect
        case serverTrust = "server_trust"
        case response
    }

    public var id: String
    public var kind: Kind
    // auth_challenge
    public var protectionSpace: ProtectionSpaceView?
    public var failureCount: Int?
    public var proposedCredential: ProposedCredential?
    // redirect, response
    public var url: String?
    public var response: ResponseView?
    // server_trust
    public var host: String?
    public var port: Int?
    /// DER, base64, leaf first.
    public var certificates: [String]?
    /// `sha256//` public-key pins of `certificates`, in the same order.
    public var pins: [String]?
    /// Why default evaluation refused the chain.
    public var defaultEvaluationFailure: String?

    public struct ProtectionSpaceView: Sendable, Equatable, Codable {
        public var host: String
        public var port: Int
        public var scheme: String
        public var realm: String?
        public var method: String
        public var proxy: Bool

        package init(host: String, port: Int, scheme: String, realm: String? = nil, method: String, proxy: Bool) {
            self.host = host
            self.port = port
            self.scheme = scheme
            self.realm = realm
            self.method = method
            self.proxy = proxy
        }
    }

    public struct ProposedCredential: Sendable, Equatable, Codable {
        public var username: String

        package init(username: String) {
            self.username = username
        }
    }

    public struct ResponseView: Sendable, Equatable, Codable {
        public var status: Int?
        public var headers: [String: String]

        package init(status: Int? = nil, headers: [String: String]) {
            self.status = status
            self.headers = headers
        }
    }

    package enum CodingKeys: String, CodingKey {
        case id, kind
        case protectionSpace = "protection_space"
        case failureCount = "failure_count"
        case proposedCredential = "proposed_credential"
        case url, response, host, port, certificates, pins
        case defaultEvaluationFailure = "default_evaluation_failure"
    }

    private init(fingerprint: String, kind: Kind) {
        id = SHA256.hash(data: Data(fingerprint.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        self.kind = kind
    }

    /// A 401 or 407 challenge for Basic, Digest or Bearer.
    package static func authChallenge(_ challenge: AuthenticationChallenge) -> PendingDecision {
        let space = challenge.protectionSpace
        let method = space.authenticationMethod.rawValue
        var decision = PendingDecision(
            fingerprint: "auth_challenge|\(space.isProxy)|\(space.scheme)|\(space.host)|\(space.port)|\(space.realm ?? "")|\(method)|\(challenge.previousFailureCount)",
            kind: .authChallenge)
        decision.protectionSpace = ProtectionSpaceView(
            host: space.host, port: space.port, scheme: space.scheme, realm: space.realm, method: method, proxy: space.isProxy)
        decision.failureCount = challenge.previousFailureCount
        decision.proposedCredential = challenge.proposedCredential?.user.map(ProposedCredential.init(username:))
        return decision
    }

    /// The `hop`th redirect of the attempt (0: the first), to `target`.
    package static func redirect(hop: Int, to target: URL, response: TransferResponse) -> PendingDecision {
        var decision = PendingDecision(fingerprint: "redirect|\(hop)|\(target.absoluteString)", kind: .redirect)
        decision.url = target.absoluteString
        decision.response = ResponseView(
            status: response.statusCode,
            headers: JobView.redacted(response.headers.map { JobSpecification.Header(name: $0.name, value: $0.value) }))
        return decision
    }

    /// The response head of a job that asks before its body is stored (LC-05). One decision per job:
    /// its answer holds for every later attempt (a retry, a resume that gets a 206), so the
    /// fingerprint is the job's request, not what the origin answered this time.
    package static func response(_ response: TransferResponse, request: URL) -> PendingDecision {
        var decision = PendingDecision(fingerprint: "response|\(request.absoluteString)", kind: .response)
        decision.url = response.url.absoluteString
        decision.response = ResponseView(
            status: response.statusCode,
            headers: JobView.redacted(response.headers.map { JobSpecification.Header(name: $0.name, value: $0.value) }))
        return decision
    }

    /// A certificate chain default evaluation refused.
    package static func serverTrust(_ trust: ServerTrust, port: Int) -> PendingDecision {
        let leaf = trust.certificateChain.first ?? Data()
        let leafDigest = SHA256.hash(data: leaf).map { String(format: "%02x", $0) }.joined()
        var decision = PendingDecision(fingerprint: "server_trust|\(trust.host)|\(port)|\(leafDigest)", kind: .serverTrust)
        decision.host = trust.host
        decision.port = port
        decision.certificates = trust.certificateChain.map { $0.base64EncodedString() }
        decision.pins = trust.certificateChain.map { PublicKeyPin.sha256(ofCertificate: $0) ?? "" }
        decision.defaultEvaluationFailure = trust.defaultEvaluationFailure
        return decision
    }

    /// Each kind shows exactly its own fields; an authentication decision says `"proposed_credential":
    /// null` when there is none, so clients need not tell "none" from "not this kind".
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        switch kind {
        case .authChallenge:
            try container.encodeIfPresent(protectionSpace, forKey: .protectionSpace)
            try container.encodeIfPresent(failureCount, forKey: .failureCount)
            try container.encode(proposedCredential, forKey: .proposedCredential)
        case .redirect, .response:
            try container.encodeIfPresent(url, forKey: .url)
            try container.encodeIfPresent(response, forKey: .response)
        case .serverTrust:
            try container.encodeIfPresent(host, forKey: .host)
            try container.encodeIfPresent(port, forKey: .port)
            try container.encodeIfPresent(certificates, forKey: .certificates)
            try container.encodeIfPresent(pins, forKey: .pins)
            try container.encodeIfPresent(defaultEvaluationFailure, forKey: .defaultEvaluationFailure)
        }
    }
}
