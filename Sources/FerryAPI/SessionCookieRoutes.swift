import FerryModel
import FerryStore
import Foundation
import Hummingbird
import URLLoading

/// `/v1/sessions/{id}/cookies`: a session's cookie jar, to inspect (a login flow's user needs to see
/// what the site set) and to empty.
///
/// Values are shown: the jar is the calling tenant's own, reached with its own key, and a cookie
/// that cannot be read cannot be debugged. They are credentials all the same, so they appear in no
/// log and in no job view (those redact Cookie and Set-Cookie headers). Another tenant's session is
/// a 404. An ephemeral session's cookies live only in the memory of the ferryd running its jobs, so
/// its jar cannot be reached here (409, `session_ephemeral`).
struct SessionCookieRoutes {
    let sessions: SessionStore
    let cookies: SessionCookieStore

    struct CookieView: Codable {
        var name: String
        var value: String
        var domain: String
        var path: String
        var expires: String?
        var secure: Bool
        var httpOnly: Bool
        var sameSite: String?
        var hostOnly: Bool

        enum CodingKeys: String, CodingKey {
            case name, value, domain, path, expires, secure
            case httpOnly = "http_only"
            case sameSite = "same_site"
            case hostOnly = "host_only"
        }

        init(_ cookie: URLLoading.Cookie) {
            name = cookie.name
            value = cookie.value
            domain = cookie.domain
            path = cookie.path
            expires = cookie.expiresDate.map(JobView.timestamp)
            secure = cookie.isSecure
            httpOnly = cookie.isHTTPOnly
            sameSite = cookie.sameSite?.rawValue
            hostOnly = cookie.isHostOnly
        }
    }

    struct CookieList: ResponseEncodable {
        var cookies: [CookieView]
    }

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.get("/sessions/{id}/cookies") { _, context in
            let (session, _) = try await jarSession(context)
            return CookieList(cookies: try await cookies.cookies(session: session).map(CookieView.init))
        }
        group.delete("/sessions/{id}/cookies") { _, context in
            let (session, tenant) = try await jarSession(context)
            try await cookies.clear(session: session, tenant: tenant)
            return HTTPResponse.Status.noContent
        }
    }

    /// The session named in the path, if it is the caller's and keeps a jar here.
    private func jarSession(_ context: GatewayRequestContext) async throws -> (session: UUID, tenant: UUID) {
        let tenant = try context.requireTenant()
        let id = try TenantRoutes.id(context, "id")
        guard let record = try await sessions.session(id, tenant: tenant) else { throw Problem.notFound("session \(id.lowercasedString)") }
        guard record.kind != "ephemeral" else {
            throw Problem(
                .conflict, code: "session_ephemeral",
                "an ephemeral session keeps its cookies only in the memory of the ferryd running its jobs, never in the database")
        }
        return (id, tenant)
    }
}
