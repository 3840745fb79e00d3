/// Formats the progress bar's status line. Pure, so what the meter shows depends only on its input.
enum ProgressLine {
    /// What the line shows at one moment.
    struct Snapshot {
        var bytesDone: Int64
        /// Total bytes expected; nil when unknown (LC-19) or for a batch.
        var bytesTotal: Int64?
        var bytesPerSecond: Double?
        /// For a batch: files finished (either way), failed, and in the list.
        var files: (finished: Int, failed: Int, total: Int)?
        /// The last line, drawn once all transfers ended: no ETA.
        var isFinal: Bool
        /// The time left as someone else estimated it (a gateway job's `eta_seconds`); when nil, the
        /// line works it out from the rate.
        var secondsLeft: Double? = nil
    }

    /// About the longest text beside the bar: " 99%  1023.9 MiB / 1023.9 MiB  1023.9 MiB/s  ETA 1:59:59".
    private static let widestText = 60

    static func render(_ snapshot: Snapshot, width: Int) -> String {
        var parts: [String] = []
        var fraction: Double?
        if let files = snapshot.files {
            parts.append("\(files.finished)/\(files.total) files")
            if files.failed > 0 { parts.append("\(files.failed) failed") }
            parts.append(byteCount(snapshot.bytesDone))
            fraction = files.total > 0 ? Double(files.finished) / Double(files.total) : nil
        } else if let total = snapshot.bytesTotal, total > 0 {
            fraction = min(1, Double(snapshot.bytesDone) / Double(total))
            parts.append(percent(fraction ?? 0))
            parts.append("\(byteCount(snapshot.bytesDone)) / \(byteCount(total))")
        } else {
            parts.append(byteCount(snapshot.bytesDone))
        }
        if let rate = snapshot.bytesPerSecond, rate.isFinite, rate >= 0 {
            parts.append(byteCount(Int64(rate)) + "/s")
            if !snapshot.isFinal, snapshot.files == nil, let total = snapshot.bytesTotal, rate > 0,
                total > snapshot.bytesDone
            {
                parts.append("ETA " + clock(snapshot.secondsLeft ?? Double(total - snapshot.bytesDone) / rate))
            }
        }
        let text = parts.joined(separator: "  ")
        // One column spare: writing the last column makes some terminals wrap.
        let room = width - 1
        guard let fraction else { return String(text.prefix(room)) }
        // The bar's width depends on the terminal only, not on the text beside it, so it does not
        // jump about as the rate and ETA come and go.
        let barWidth = min(30, room - widestText - 3)
        guard barWidth >= 5 else { return String(text.prefix(room)) }
        return String((bar(fraction, width: barWidth) + " " + text).prefix(room))
    }

    /// `[=======>      ]`, `width` columns between the brackets.
    static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((fraction * Double(width)).rounded(.down))
        if filled >= width { return "[" + String(repeating: "=", count: width) + "]" }
        return "[" + String(repeating: "=", count: filled) + ">" + String(repeating: " ", count: width - filled - 1) + "]"
    }

    static func percent(_ fraction: Double) -> String {
        let value = Int((fraction * 100).rounded(.down))
        return (value < 10 ? "  " : value < 100 ? " " : "") + "\(value)%"
    }

    /// Binary units with one decimal: "512 B", "1.5 KiB", "3.0 GiB".
    static func byteCount(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        for unit in ["KiB", "MiB", "GiB", "TiB"] {
            if value < 1024 || unit == "TiB" { return oneDecimal(value) + " " + unit }
            value /= 1024
        }
        return oneDecimal(value) + " TiB"
    }

    /// "m:ss" or "h:mm:ss"; "--:--" for absurd values.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
