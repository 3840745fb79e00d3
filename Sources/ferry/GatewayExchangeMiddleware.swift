import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import URLLoadingOpenAPI

/// What `ferry` does around every request of the generated client: with `-v` it prints the request
/// (the key redacted) and the response's head; a refusal (any status but 2xx) becomes the
/// `GatewayFailure` with the problem document's words, whatever the operation documents for that
/// status, so every command fails with the same line; and a 2xx body is kept as received for
/// `--json`, which prints the API's own bytes rather than the client's re-encoding of them.
struct GatewayExchangeMiddleware: ClientMiddleware {
    let log: Console?

    /// Where `GatewayConnection.call` wants the reply's body; set for the duration of one call.
    @TaskLocal static var replyBody: ReplyBody?

    final class ReplyBody: Sendable {
        let data = Mutex(Data())
    }

    /// Replies are JSON documents; the largest, a page of 500 jobs, is far below this.
    static let maximumReplyBody = 32 << 20

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if let log {
            var headers = request.headerFields.map { ($0.name.rawName, $0.value) }
            for index in headers.indices where headers[index].0.lowercased() == "authorization" {
                headers[index].1 = "Bearer <redacted>"
            }
            let url = (try? URLLoadingTransport.url(of: request, baseURL: baseURL).absoluteString) ?? baseURL.absoluteString
            var bodyLength: Int64?
            if case .known(let length) = body?.length { bodyLength = length }
            log.printLines(VerboseLog.request(method: request.method.rawValue, url: url, headers: headers, bodyLength: bodyLength))
        }
        let (response, responseBody) = try await next(request, body, baseURL)
        log?.printLines(
            VerboseLog.response(
                httpVersion: nil, statusCode: response.status.code,
                headers: response.headerFields.map { ($0.name.rawName, $0.value) }))
        guard response.status.kind == .successful else {
            var problem = Data()
            if let responseBody { problem = (try? await Data(collecting: responseBody, upTo: GatewayConnection.maximumErrorBody)) ?? Data() }
            throw GatewayFailure.refused(statusCode: response.status.code, body: problem)
        }
        guard let recorder = Self.replyBody, let responseBody else { return (response, responseBody) }
        let data = try await Data(collecting: responseBody, upTo: Self.maximumReplyBody)
        recorder.data.withLock { $0 = data }
        return (response, HTTPBody(data))
    }
}
