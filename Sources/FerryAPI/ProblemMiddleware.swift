import FerryModel
import FerryStore
import Hummingbird
import Logging

/// Turns every error that reaches the edge into a `Problem`. It is the one place where a domain
/// `GatewayError` becomes an HTTP status; Hummingbird's own errors (unknown route, body too large, a
/// method not allowed) keep their status with a code of ours; a database that cannot be reached is a 503
/// `database_unavailable` with `Retry-After` (`DatabaseOutage`); anything unexpected becomes a 500 whose
/// detail says nothing about internals, with the error logged under the request's id.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Filled once every route is added: a path the API has, with a method it does not, is a 405.
    let allowed: AllowedMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            throw problem
        } catch let error as GatewayError {
            throw Problem(error)
        } catch let error as HTTPError {
            let methods = error.status == .notFound && error.body == nil ? allowed.methods(for: request.uri.path) : []
            if !methods.isEmpty {
                throw Problem(
                    .methodNotAllowed, code: "method_not_allowed",
                    "\(request.uri.path) takes \(methods.joined(separator: ", ")), not \(request.method.rawValue)",
                    headers: [.allow: methods.joined(separator: ", ")])
            }
            throw Self.problem(status: error.status, detail: error.body, headers: error.headers)
        } catch let error as any HTTPResponseError {
            throw Self.problem(status: error.status, detail: nil, headers: [:])
        } catch where DatabaseOutage.describes(error) {
            // Raised while reading rows, after the pool handed the statement over.
            throw Problem(DatabaseOutage.refusal)
        } catch {
            context.logger.error("request failed", metadata: ["error": LoggedError.metadata(error)])
            throw Problem(.internalServerError, code: "internal_error", "the server failed to handle the request; see its log")
        }
    }

    static func problem(status: HTTPResponse.Status, detail: String?, headers: HTTPFields) -> Problem {
        switch status {
        case .notFound: Problem(.notFound, code: "not_found", detail ?? "no such route")
        case .contentTooLarge: Problem(.contentTooLarge, code: "body_too_large", detail ?? "the request body is too large (JSON bodies: at most 1 MiB)")
        default: Problem(status, code: code(for: status), detail ?? status.reasonPhrase, headers: headers)
        }
    }

    static func code(for status: HTTPResponse.Status) -> String {
        status.reasonPhrase.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) }
    }
}
