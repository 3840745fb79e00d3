import Hummingbird
import Logging

/// Turns every error that reaches the edge into a `Problem`: Hummingbird's own (unknown route, body too
/// large, a method not allowed) keep their status with a code of ours; anything unexpected becomes a
/// 500 whose detail says nothing about internals, with the error logged under the request's id.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            throw problem
        } catch let error as HTTPError {
            throw Self.problem(for: error)
        } catch let error as any HTTPResponseError {
            throw Problem(error.status, code: Self.code(for: error.status), error.status.reasonPhrase)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            throw Problem(.internalServerError, code: "internal_error", "the server failed to handle the request; see its log")
        }
    }

    static func problem(for error: HTTPError) -> Problem {
        switch error.status {
        case .notFound: Problem(.notFound, code: "not_found", error.body ?? "no such route")
        case .contentTooLarge: Problem(.contentTooLarge, code: "body_too_large", error.body ?? "the request body is too large")
        default: Problem(error.status, code: code(for: error.status), error.body ?? error.status.reasonPhrase, headers: error.headers)
        }
    }

    static func code(for status: HTTPResponse.Status) -> String {
        status.reasonPhrase.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) }
    }
}
