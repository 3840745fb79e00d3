/// A value that must never reach a log line, an error message or a `description`: the admin key, a database password.
///
/// Wrapping it (instead of passing a bare `String`) makes the safe thing the default: interpolating a
/// `Secret` anywhere, printing it, or `dump`ing a value that holds one shows a placeholder. Code that
/// really needs the text has to ask for `revealed`, which is easy to find in review.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret text itself. Only pass it to what needs it (a hash, a database handshake), never to a logger.
    public let revealed: String

    public init(_ revealed: String) {
        self.revealed = revealed
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
