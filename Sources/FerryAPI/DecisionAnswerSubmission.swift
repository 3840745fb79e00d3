import FerryModel
import Foundation

/// The body of `POST /v1/jobs/{id}/decision`, and its validation against the decision the job waits
/// for: a disposition that does not answer that kind of decision is a 422, not a 400, since the
/// body itself is well formed.
struct DecisionAnswerSubmission: Decodable {
    /// Optional: the `decision.id` the client saw. When given and the job now waits for another
    /// decision (or none), the answer is refused with a 409 instead of answering the wrong question.
    var decisionID: String?
    var disposition: String?
    var credential: CredentialPart?
    var url: String?

    /// `{"username", "password"}` given inline, or `{"id"}` of a vault credential.
    struct CredentialPart: Decodable {
        var username: String?
        var password: String?
        var id: String?
    }

    enum CodingKeys: String, CodingKey {
        case decisionID = "decision_id"
        case disposition, credential, url
    }

    /// The answer, before its inline credential is sealed.
    struct Answer {
        var disposition: DecisionDisposition
        var inline: InlineCredential?
        var vaultID: UUID?
        var url: String?
    }

    static let maximumCredentialLength = 4096

    func validated(for decision: PendingDecision, urlPolicy: OutboundURLPolicy) throws(Problem) -> Answer {
        var errors: [Problem.FieldError] = []
        func problem(_ field: String, _ message: String) { errors.append(.init(field: field, message: message)) }
        let allowed = DecisionDisposition.allowed(for: decision.kind)
        let names = allowed.map(\.rawValue).joined(separator: ", ")
        guard let text = disposition else {
            throw Self.unfit([.init(field: "disposition", message: "is required: one of \(names)")])
        }
        guard let disposition = DecisionDisposition(rawValue: text), allowed.contains(disposition) else {
            throw Self.unfit([.init(field: "disposition", message: "a \(decision.kind.rawValue) decision is answered with one of \(names), not '\(text)'")])
        }
        var answer = Answer(disposition: disposition)
        if disposition == .useCredential {
            switch (credential?.username, credential?.password, credential?.id) {
            case (let username?, let password?, nil):
                if username.isEmpty || username.contains(":") || username.utf8.count > Self.maximumCredentialLength {
                    problem("credential.username", "must be 1 to \(Self.maximumCredentialLength) bytes without ':'")
                }
                if password.utf8.count > Self.maximumCredentialLength {
                    problem("credential.password", "must be at most \(Self.maximumCredentialLength) bytes")
                }
                answer.inline = InlineCredential(username: username, password: password)
            case (nil, nil, let id?):
                if let uuid = UUID(idText: id) { answer.vaultID = uuid } else { problem("credential.id", "is not a credential id") }
            default:
                problem("credential", "use_credential needs {\"username\", \"password\"} or {\"id\"} of a vault credential")
            }
        } else if credential != nil {
            problem("credential", "only a use_credential answer carries a credential")
        }
        if disposition == .change {
            if let text = url {
                if let message = SubmittedURL.problem(text, policy: urlPolicy, webOnly: true) { problem("url", message) } else { answer.url = text }
            } else {
                problem("url", "change needs the http or https URL to go to instead")
            }
        } else if url != nil {
            problem("url", "only a change answer carries a url")
        }
        guard errors.isEmpty else { throw Self.unfit(errors) }
        return answer
    }

    static func unfit(_ errors: [Problem.FieldError]) -> Problem {
        let summary = errors.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
        return Problem(.unprocessableContent, code: "decision_answer_invalid", summary, errors: errors)
    }
}
