import Foundation

/// The JSON every client sees, in API responses, event streams and webhook payloads alike: sorted keys
/// and plain slashes, stable output that diffs well and reads well in a terminal.
public enum WireJSON {
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
