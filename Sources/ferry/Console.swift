import Foundation
import Synchronization

/// Standard error, shared by failure lines, verbose output and the progress bar.
///
/// The progress bar is a status line redrawn in place with `\r`; any other line must first wipe it,
/// or the two would interleave into garbage. Every write goes through one lock for that reason, and
/// so that lines from parallel transfers never mix mid-line.
final class Console: Sendable {
    /// Whether standard error is a terminal: only then is a progress bar drawn.
    let isTerminal: Bool

    /// True while a status line is on screen (drawn, not yet ended with a newline).
    private let statusShown = Mutex(false)

    init() {
        isTerminal = isatty(STDERR_FILENO) == 1
    }

    /// Prints `text` (one or more lines) on standard error, clearing the status line first if shown;
    /// the progress meter redraws it on its next tick.
    func printLines(_ text: String) {
        statusShown.withLock { shown in
            let prefix = shown ? Self.clearLine : ""
            shown = false
            _ = FileDescriptorOutput.writeAll(prefix + text + (text.hasSuffix("\n") ? "" : "\n"), to: STDERR_FILENO)
        }
    }

    /// Draws `line` as the status line, replacing the previous one.
    func showStatus(_ line: String) {
        statusShown.withLock { shown in
            shown = true
            _ = FileDescriptorOutput.writeAll(Self.clearLine + line, to: STDERR_FILENO)
        }
    }

    /// Leaves the status line on screen and moves below it.
    func endStatus() {
        statusShown.withLock { shown in
            guard shown else { return }
            shown = false
            _ = FileDescriptorOutput.writeAll("\n", to: STDERR_FILENO)
        }
    }

    /// The terminal's width in columns; 80 when it cannot be told.
    func width() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// Carriage return, then erase to the end of the line (ANSI EL).
    private static let clearLine = "\r\u{1B}[K"
}
