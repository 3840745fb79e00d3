import Foundation
import URLLoading

/// Why a gateway command failed: printed as one line on standard error, with the exit status to leave.
///
/// When the gateway refused a request, the line carries its problem document's `detail` and `code`
/// (`ferry: job 0c4e... was not found (not_found)`), the same words whatever the command. Nothing here
/// ever holds the API key: messages are built from the gateway's own problem documents (which never
/// contain secrets), status codes and the engine's errors about the server's URL.
struct GatewayFailure: Error, Sendable {
    let message: String
    let status: ExitStatus

    init(_ message: String, status: ExitStatus = .transportFailure) {
        self.message = message
        self.status = status
    }

    /// The gateway answered `statusCode` with `body`: its problem document when it is one (RFC 9457),
    /// else the bare status.
    static func refused(statusCode: Int, body: Data) -> GatewayFailure {
        if let problem = try? JSONDecoder().decode(ProblemDocument.self, from: body), let detail = problem.detail {
            return GatewayFailure(problem.code.map { "\(detail) (\($0))" } ?? detail)
        }
        return GatewayFailure("the gateway answered HTTP \(statusCode)")
    }

    /// The request never got an answer: connection refused, timed out, ...
    static func unreachable(_ error: TransferError) -> GatewayFailure {
        GatewayFailure("\(error.code.rawValue): \(error.message)")
    }

    /// A 2xx answer whose body is not what the API documents.
    static func unexpectedAnswer(_ what: String) -> GatewayFailure {
        GatewayFailure("the gateway's answer is not \(what)")
    }

    /// The fields of a problem document the failure line shows.
    private struct ProblemDocument: Decodable {
        var detail: String?
        var code: String?
    }
}
