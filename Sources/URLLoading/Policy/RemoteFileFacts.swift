import Foundation

/// What an ftp server said about the file a download reads: its size (SIZE) and modification time
/// (MDTM). For ftp these are the validators resume data keeps, as ETag and Content-Range are for
/// http (DL-09, DL-10): a download continues a partial file (REST) only when both are still what
/// they were, and starts over from byte 0 otherwise.
///
/// Resume data keeps the size as `expectedTotal` and the modification time as `lastModified`, an
/// HTTP date, so that ftp needs no fields of its own.
struct RemoteFileFacts: Equatable {
    /// The whole file's length, when the server said.
    var size: Int64?
    /// The file's modification time as an HTTP date, when the server said.
    var lastModified: String?

    /// - Parameters:
    ///   - announcedLength: curl's content length of the hop. Resumed at `offset`, curl announces
    ///     what is still to come once the body starts (SIZE - offset), but the whole SIZE when nothing
    ///     is left to fetch (it then skips RETR and no body starts).
    ///   - fileTime: curl's file time (MDTM, asked with CURLOPT_FILETIME), seconds since 1970.
    init(announcedLength: Int64?, fileTime: Int64?, resumedAt offset: Int64, bodyStarted: Bool) {
        size = announcedLength.map { bodyStarted ? offset + $0 : $0 }
        lastModified = fileTime.map(Self.httpDate(secondsSince1970:))
    }

    init(size: Int64?, lastModified: String?) {
        self.size = size
        self.lastModified = lastModified
    }

    /// The validators resume data keeps; nil without a size, which is the least a continuation
    /// must be checked against.
    var validators: EntityValidators? {
        size == nil ? nil : EntityValidators(entityTag: nil, lastModified: lastModified)
    }

    /// Why the server's file is not the one `source` recorded, or nil when it is: the size must be
    /// the recorded one, and so must the modification time when one was recorded.
    func mismatch(against source: ResumeData) -> String? {
        guard let recorded = source.expectedTotal else { return "the resume data records no file size to compare" }
        guard let size else { return "the server did not say the file's size" }
        guard size == recorded else { return "the file is \(size) bytes long now, not \(recorded)" }
        if let recordedTime = source.lastModified, lastModified != recordedTime {
            return "the file was modified \(lastModified ?? "at an unknown time"), not \(recordedTime)"
        }
        return nil
    }

    /// IMF-fixdate (RFC 9110): "Sun, 06 Nov 1994 08:49:37 GMT", written without locale.
    static func httpDate(secondsSince1970 seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
