import Tracing

extension DatabasePool {
    /// A client span for one call, named and described as OpenTelemetry's database conventions say;
    /// nil when nothing is traced, or when the call belongs to no traced request or job attempt (the
    /// claim loop, the probe, the event feed): those would each be a trace of their own, many a second.
    func databaseSpan(_ operation: String, file: String, line: Int) -> (any Span)? {
        guard let tracer, let parent = ServiceContext.current else { return nil }
        let span = tracer.startSpan(operation, context: parent, ofKind: .client, function: "", file: file, line: UInt(line))
        span.updateAttributes { attributes in
            attributes["db.system.name"] = "postgresql"
            attributes["db.operation.name"] = operation
            attributes["code.file.path"] = file
            attributes["code.line.number"] = line
        }
        return span
    }
}

/// A span's name for a statement: its first keyword (`SELECT`, `UPDATE`, `WITH`, ...), upper-cased;
/// the text itself is not recorded (it is long, and a trace backend is no place for the schema).
enum DatabaseSpanName {
    static func of(sql: String) -> String {
        let keyword = sql.utf8.drop { !isLetter($0) }.prefix { isLetter($0) }
        guard !keyword.isEmpty, keyword.count <= 16 else { return "statement" }
        return String(decoding: keyword, as: UTF8.self).uppercased()
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
