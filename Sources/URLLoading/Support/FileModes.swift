import Foundation

/// Permission bits for files the engine hands over.
enum FileModes {
    /// 0666 masked by the process's umask, as a shell redirection or curl would create the file. The
    /// umask is read from /proc: `umask()` can only be read by changing it, which races with other
    /// threads creating files.
    static var newFile: mode_t {
        0o666 & ~processUmask
    }

    static var processUmask: mode_t {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let value = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        else { return 0o022 }
        return value
    }
}
