#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A plain TCP connection to a loopback port, for what an HTTP client library will not send: broken
/// requests, a request head cut short, nothing at all.
final class RawConnection {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 { close(descriptor) }
        try #require(connected == 0)
    }

    deinit {
        close(descriptor)
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        try #require(Glibc.send(descriptor, bytes, bytes.count, 0) == bytes.count)
    }

    /// What the server sends until it closes the connection, and whether it did within `seconds`
    /// (false: still open when they were up).
    func readUntilClosed(within seconds: Int) -> (reply: String, closed: Bool) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = ContinuousClock.now + .seconds(seconds)
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                reply += buffer[..<count]
                continue
            }
            if count < 0, errno == EINTR { continue }
            // A reset (the server closed with our bytes unread) is a close too; only the receive
            // timeout means it is still open.
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
            return (String(decoding: reply, as: UTF8.self), true)
        }
        return (String(decoding: reply, as: UTF8.self), false)
    }
}
