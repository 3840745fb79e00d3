// bench/ P4 baseline: the smallest Hummingbird 2 server, one GET route answering a small fixed
// JSON body. Same framework, same defaults (HTTP/1.1, NIO's singleton event loop group) as
// ferryd's API, so wrk against it shows what the framework itself costs per request on this machine.
// Usage: minimal-route [port]   (port 0 or none: a free one). Prints
// "minimal-route listening on http://127.0.0.1:PORT" on standard output once it accepts.
import Foundation
import Hummingbird
import Logging

@main
struct MinimalRoute {
    /// About the size of a small job view's first fields, so both servers write similar bodies.
    static let body = #"{"id":"00000000-0000-0000-0000-000000000000","kind":"download","state":"succeeded","attempt":1}"#

    static func main() async throws {
        let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 0 : 0
        var logger = Logger(label: "minimal-route")
        logger.logLevel = .info  // like ferryd: no per-request log lines

        let router = Router()
        router.get("/v1/ping") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: Self.body)))
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "minimal-route"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                FileHandle.standardOutput.write(Data("minimal-route listening on http://127.0.0.1:\(bound)\n".utf8))
            },
            logger: logger)
        try await app.runService()
    }
}
