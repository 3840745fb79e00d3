import FerryAPI
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP parser refuses (a broken request line or header, a header too long)
/// with a problem document, 400 `malformed_request`, like every other error of the API, instead of
/// Hummingbird's bare 400; then closes the connection, since nothing after the broken part can be
/// read as a request.
///
/// Only between requests: while a response is being written, the error goes on to Hummingbird,
/// which ends that exchange its own way.
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Request heads read whose response has not ended yet.
    private var unanswered = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { unanswered += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered -= 1 }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, unanswered == 0 else {
            context.fireErrorCaught(error)
            return
        }
        let problem = Problem(.badRequest, code: "malformed_request", "the request is not valid HTTP/1.1: \(Self.describe(parserError))")
        let body = ByteBuffer(data: (try? problem.document()) ?? Data())
        let head = HTTPResponse(status: .badRequest, headerFields: [
            .contentType: "application/problem+json", .contentLength: String(body.readableBytes), .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }

    private static func describe(_ error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: "its head is too long"
        case .invalidHeaderToken: "a header line is malformed"
        case .invalidMethod: "its method is not a token"
        case .invalidURL: "its target is malformed"
        case .invalidVersion: "its HTTP version is malformed"
        case .invalidContentLength, .unexpectedContentLength: "its Content-Length is malformed"
        default: "it cannot be parsed (\(error))"
        }
    }
}
