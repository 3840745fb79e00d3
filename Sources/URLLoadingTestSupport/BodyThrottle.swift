/// How slowly a route reads a request body: a pause after every `stride` bytes.
///
/// Reading slowly makes flow control hold the client back, so its upload progress advances
/// at the server's pace rather than all at once.
struct BodyThrottle {
    var stride = 16 * 1024
    var pause = Duration.milliseconds(50)

    /// `bytes_per_pause` and `pause_ms` from the query override the defaults (16 KiB, 50 ms);
    /// nil when either is not a positive integer.
    init?(query: [String: String]) {
        if let text = query["bytes_per_pause"] {
            guard let value = Int(text), value > 0 else { return nil }
            stride = value
        }
        if let text = query["pause_ms"] {
            guard let value = Int(text), value >= 0 else { return nil }
            pause = .milliseconds(value)
        }
    }
}
