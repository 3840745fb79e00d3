/// The port a URL's text writes after its host. Not `URL.port` or `URLComponents.port`: they are
/// nil for a port too large for an `Int`, as for none, so `http://h:99999999999999999999/` would
/// pass for a URL without a port.
package enum WrittenPort {
    /// The port as `urlText` writes it (empty for `host:`, which means the scheme's), nil when it
    /// names none or has no `scheme://` authority.
    package static func of(_ urlText: String) -> Substring? {
        guard let start = urlText.range(of: "://")?.upperBound else { return nil }
        var authority = urlText[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        // An IPv6 literal's colons are inside its brackets.
        if let close = authority.lastIndex(of: "]") { authority = authority[authority.index(after: close)...] }
        guard let colon = authority.firstIndex(of: ":") else { return nil }
        return authority[authority.index(after: colon)...]
    }

    /// Whether `port` is a TCP port one can connect to: digits for 1 to 65535.
    package static func isTCPPort(_ port: Substring) -> Bool {
        guard port.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int(port) else { return false }
        return (1...65535).contains(value)
    }
}
