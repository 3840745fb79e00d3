import NIOCore
import NIOPosix

/// Port chores for servers that run in another process.
///
/// These block, on purpose: they serve `FTPServer`'s synchronous start, never an event loop.
enum LoopbackPort {
    /// A port on 127.0.0.1 that nothing listens on right now, found by letting the kernel
    /// choose one and releasing it. Another process could take it before it is used, so
    /// callers retry on failure.
    static func unused() throws -> Int {
        let listener = try ServerBootstrap(group: NIOSingletons.posixEventLoopGroup)
            .bind(host: "127.0.0.1", port: 0)
            .wait()
        defer { try? listener.close().wait() }
        guard let port = listener.localAddress?.port else {
            throw TestServerError.couldNotBind
        }
        return port
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func acceptsConnections(_ port: Int) -> Bool {
        do {
            let channel = try ClientBootstrap(group: NIOSingletons.posixEventLoopGroup)
                .connectTimeout(.milliseconds(500))
                .connect(host: "127.0.0.1", port: port)
                .wait()
            try? channel.close().wait()
            return true
        } catch {
            return false
        }
    }
}
