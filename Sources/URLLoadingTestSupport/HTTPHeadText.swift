/// A request or response head as raw text, for the forward proxy, which relays bytes and
/// only needs to read and rewrite the head (not speak HTTP through a full codec).
struct HTTPHeadText {
    /// The request line or status line.
    var startLine: String
    var headers: [HeaderField]

    /// Parses a head ending in CRLF CRLF; nil if it has no start line.
    init?(_ text: String) {
        var lines = text.components(separatedBy: "\r\n")
        while lines.last == "" { lines.removeLast() }
        guard let first = lines.first, !first.isEmpty else { return nil }
        startLine = first
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HeaderField(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingSpaces)
        }
    }

    /// The words of the start line: method, target, version for a request; version, status, reason for a response.
    var startLineParts: [String] {
        startLine.split(separator: " ", maxSplits: 2).map(String.init)
    }

    func header(_ name: String) -> String? {
        headers.value(for: name)
    }

    mutating func removeHeaders(named names: Set<String>) {
        headers.removeAll { names.contains($0.name.lowercased()) }
    }

    var serialized: String {
        ([startLine] + headers.map(\.description)).joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Hop-by-hop headers meant for the proxy or this one connection, never forwarded.
    static let hopByHopHeaders: Set<String> = ["connection", "keep-alive", "proxy-connection", "proxy-authorization"]
}
