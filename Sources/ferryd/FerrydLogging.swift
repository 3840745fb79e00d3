import Logging

/// ferryd logs with swift-log to standard error, leaving standard output to what a command reports
/// (`ferryd migrate` prints what it applied there, for scripts to read).
enum FerrydLogging {
    static func bootstrap() {
        LoggingSystem.bootstrap { label in
            LazyMetadataLogHandler(label: label, logLevel: .info)
        }
    }
}
