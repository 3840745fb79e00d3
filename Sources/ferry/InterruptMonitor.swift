import Dispatch
import Foundation
import Synchronization

/// Turns Ctrl-C (SIGINT) and SIGTERM into a clean stop.
///
/// Being killed outright would leave the engine's temporary download files behind in the output
/// directory. Instead the first signal runs `onInterrupt` (which cancels every transfer, and the engine
/// then deletes their files) and the command exits 130 once the transfers have wound down. A second
/// signal exits at once, for when the user is not willing to wait.
final class InterruptMonitor: @unchecked Sendable {
    // @unchecked: the dispatch sources are created in `init` and never touched again; they are kept
    // only so they stay alive. The signal count is behind a lock.
    private let sources: [any DispatchSourceSignal]
    private let signals = SignalCount()

    /// Shared by the handlers, which cannot capture `self` while `init` is still setting it up.
    private final class SignalCount: Sendable {
        let value = Mutex(0)
    }

    init(onInterrupt: @escaping @Sendable () -> Void) {
        let signals = self.signals
        sources = [SIGINT, SIGTERM].map { number in
            // The default action would kill the process before the handler could run.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let count = signals.value.withLock { count in
                    count += 1
                    return count
                }
                if count == 1 {
                    onInterrupt()
                } else {
                    _exit(ExitStatus.interrupted.code)
                }
            }
            source.resume()
            return source
        }
    }

    /// Whether a signal arrived.
    var hasFired: Bool { signals.value.withLock { $0 > 0 } }
}
