import FerryModel
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `/v1/credentials`: a tenant's credential vault. Secrets go in once and never come out: every reply
/// shows where a credential applies and which kind of secret it holds, nothing of the secret. Another
/// tenant's credential is a 404, as one that does not exist.
struct CredentialRoutes {
    let credentials: CredentialStore

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.post("/credentials") { request, context in
            let tenant = try context.requireTenant()
            let (submission, _) = try await JSONBody.decode(CredentialSubmission.self, from: request, context: context)
            let record = try await credentials.create(try submission.validated(), tenant: tenant)
            return EditedResponse(
                status: .created, headers: [.location: "/v1/credentials/\(record.id.lowercasedString)"], response: CredentialView(record))
        }
        group.get("/credentials") { request, context in
            let tenant = try context.requireTenant()
            var errors: [Problem.FieldError] = []
            let parameters = PageParameters(request, errors: &errors)
            guard errors.isEmpty else { throw Problem.invalid(errors) }
            let page = try await credentials.credentials(tenant: tenant, limit: parameters.limit, after: parameters.cursor)
            return CredentialPage(credentials: page.credentials.map(CredentialView.init), nextCursor: page.next?.token)
        }
        group.get("/credentials/{id}") { _, context in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            guard let record = try await credentials.credential(id, tenant: tenant) else { throw Problem.notFound("credential \(id.lowercasedString)") }
            return CredentialView(record)
        }
        group.delete("/credentials/{id}") { _, context in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            guard try await credentials.delete(id, tenant: tenant) else { throw Problem.notFound("credential \(id.lowercasedString)") }
            return HTTPResponse.Status.noContent
        }
    }
}

/// A credential as the API shows it: metadata only, never the secret.
struct CredentialView: ResponseEncodable {
    var id: String
    var protectionSpace: Space
    var persistence: String
    var session: String?
    var secretKind: String
    var keyID: String
    var createdAt: String
    var resealedAt: String?

    struct Space: Codable {
        var scheme: String
        var host: String
        var port: Int
        var realm: String?
        var method: String
    }

    enum CodingKeys: String, CodingKey {
        case id
        case protectionSpace = "protection_space"
        case persistence, session
        case secretKind = "secret_kind"
        case keyID = "key_id"
        case createdAt = "created_at"
        case resealedAt = "resealed_at"
    }

    init(_ record: CredentialRecord) {
        id = record.id.lowercasedString
        let space = record.space
        protectionSpace = Space(scheme: space.scheme, host: space.host, port: space.port, realm: space.realm, method: space.method.rawValue)
        persistence = record.persistence.rawValue
        session = record.sessionID?.lowercasedString
        secretKind = record.secretKind
        keyID = record.sealed.keyID
        createdAt = JobView.timestamp(record.createdAt)
        resealedAt = record.resealedAt.map(JobView.timestamp)
    }
}

/// `GET /v1/credentials`: a page, and the cursor of the next one (nil on the last).
struct CredentialPage: ResponseEncodable {
    var credentials: [CredentialView]
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case credentials
        case nextCursor = "next_cursor"
    }
}
