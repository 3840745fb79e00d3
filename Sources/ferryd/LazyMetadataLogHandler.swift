import Logging

/// Standard error logging whose metadata is formatted only for messages that are logged.
///
/// `StreamLogHandler` turns its whole metadata into text every time a value is set. Hummingbird sets
/// a request id on every request's logger, so each request paid for formatting that an info-level
/// log never printed (3% of ferryd's CPU under wrk, bench P4). This handler keeps the metadata as it
/// is and hands it to a `StreamLogHandler` without metadata of its own, with the message.
struct LazyMetadataLogHandler: LogHandler {
    private var stream: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(label: String, logLevel: Logger.Level) {
        stream = StreamLogHandler.standardError(label: label)
        stream.logLevel = logLevel
    }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty {
            event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit }
        }
        stream.log(event: event)
    }
}
