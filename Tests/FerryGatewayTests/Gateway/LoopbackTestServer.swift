import Hummingbird
import Logging
import ServiceLifecycle

/// A Hummingbird server on 127.0.0.1 at a free port, for the test servers the gateway talks to
/// (webhook receivers, the OTLP receiver): runs for the duration of `body` and stops with it.
enum LoopbackTestServer {
    static func withRunning<T>(
        _ router: Router<BasicRequestContext>, label: String, _ body: (_ baseURL: String) async throws -> T
    ) async throws -> T {
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let logger = Logger(label: label)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                port.yield(channel.localAddress?.port ?? 0)
                port.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let listening = await iterator.next(), listening > 0 else {
            running.cancel()
            throw TestFailure("the \(label) did not start listening")
        }
        do {
            let result = try await body("http://127.0.0.1:\(listening)")
            await group.triggerGracefulShutdown()
            try await running.value
            return result
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            throw error
        }
    }
}
