import Synchronization

/// Runs flushes of one store one after another, each waiting for those before it.
///
/// A job's end is recorded only after its cookie and cache writes are in the database. Two jobs of
/// one session may end at once: the first flush takes both jobs' changes, and the second finds
/// nothing left to write. Chaining makes the second wait until the first has written them, so
/// neither job's end is recorded before its own changes are stored.
final class SerialFlush: Sendable {
    private let last = Mutex<Task<Void, any Error>?>(nil)

    /// Runs `write` after every earlier flush has ended (whether it succeeded or not), and returns
    /// or throws as `write` does.
    func run(_ write: @escaping @Sendable () async throws -> Void) async throws {
        let task = last.withLock { last -> Task<Void, any Error> in
            let previous = last
            let task = Task {
                _ = await previous?.result
                try await write()
            }
            last = task
            return task
        }
        try await task.value
    }
}
