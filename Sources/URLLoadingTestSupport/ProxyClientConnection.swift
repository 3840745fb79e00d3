import NIOCore

/// The client side of a proxy connection: its bytes, its channel, and the ways a proxy
/// turns a client away.
struct ProxyClientConnection {
    let reader: ByteStreamReader
    let channel: Channel

    /// Answers with an HTTP error and closes the connection, without losing the answer.
    ///
    /// A client may still be sending a request body. Closing with unread bytes queued makes
    /// the kernel reset the connection, which can destroy the answer before the client reads
    /// it; so the proxy stops writing, reads what is left (for at most two seconds), then closes.
    func refuse(status: String, headers: [HeaderField] = [], body: String) async {
        var head = "HTTP/1.1 \(status)\r\n"
        for header in headers + [
            HeaderField(name: "Content-Type", value: "text/plain"),
            HeaderField(name: "Content-Length", value: String(body.utf8.count)),
            HeaderField(name: "Connection", value: "close"),
        ] {
            head += "\(header.name): \(header.value)\r\n"
        }
        do {
            try await channel.writeAndFlush(ByteBuffer(string: head + "\r\n" + body))
            try await channel.close(mode: .output)
        } catch {
            try? await channel.close()
            return
        }
        let channel = self.channel
        channel.eventLoop.scheduleTask(in: .seconds(2)) {
            channel.close(promise: nil)
        }
        while (try? await reader.nextChunk()) != nil {}
    }
}
