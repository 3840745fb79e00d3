import Foundation

/// A TCP listener on 127.0.0.1 that accepts connections and never says a word.
final class SilentServer: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            Glibc.close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts one connection (blocking), for servers that answer.
    func acceptOne() -> Int32 { accept(descriptor, nil, nil) }

    func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
    }
}

/// Answers the first connection with fixed bytes, whatever was asked, then closes it.
final class ScriptedServer: @unchecked Sendable {
    private let listener: SilentServer
    var port: Int { listener.port }

    init(reply: String) throws {
        listener = try SilentServer()
        let listener = self.listener
        let thread = Thread {
            let connection = listener.acceptOne()
            guard connection >= 0 else { return }
            var request = [UInt8](repeating: 0, count: 4096)
            _ = read(connection, &request, request.count)
            let bytes = Array(reply.utf8)
            _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            Glibc.close(connection)
        }
        thread.start()
    }

    func close() { listener.close() }
}
