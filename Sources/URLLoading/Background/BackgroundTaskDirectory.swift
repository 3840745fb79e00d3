import Foundation

/// The default `BackgroundTaskStore`: a directory of the user's, private to them (0700).
///
/// ```
/// <directory>/lock              held with flock(2) while a session uses the directory
/// <directory>/tasks/<id>.json   one BackgroundTaskRecord per outstanding task (0600)
/// <directory>/partial/          the downloads' files, partial or not
/// ```
///
/// A record is written to a temporary name, flushed and renamed over the old one, so a process
/// killed at any point leaves one whole record. A record that cannot be read is renamed to
/// `<id>.json.damaged` and reported once; it stays for a person to look at.
///
/// The lock is released by the kernel when the process dies, even with `kill -9`: the next process
/// can take the tasks up at once.
public final class BackgroundTaskDirectory: BackgroundTaskStore {
    public let directory: URL
    private let lockDescriptor = Locked<Int32?>(nil)

    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
    }

    /// The directory of background session `identifier` in the user's state directory:
    /// `$XDG_STATE_HOME/ferry/background/<identifier>`, or `~/.local/state/ferry/background/<identifier>`
    /// when XDG_STATE_HOME is not set (XDG Base Directory Specification: state that should persist
    /// between restarts, but is not worth backing up).
    public convenience init(identifier: String) {
        self.init(directory: Self.defaultDirectory(identifier: identifier))
    }

    public static func defaultDirectory(identifier: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let stateHome: URL
        if let configured = environment["XDG_STATE_HOME"], configured.hasPrefix("/") {
            stateHome = URL(fileURLWithPath: configured, isDirectory: true)
        } else {
            stateHome = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state", isDirectory: true)
        }
        return stateHome.appendingPathComponent("ferry/background", isDirectory: true)
            .appendingPathComponent(identifier, isDirectory: true)
    }

    public var partialFileDirectory: URL { directory.appendingPathComponent("partial", isDirectory: true) }
    var tasksDirectory: URL { directory.appendingPathComponent("tasks", isDirectory: true) }

    // MARK: - Claim

    public func claim() throws(BackgroundTaskStoreError) {
        for folder in [directory, tasksDirectory, partialFileDirectory] {
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw BackgroundTaskStoreError("cannot create \(folder.path): \(error.localizedDescription)")
            }
        }
        let path = directory.appendingPathComponent("lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BackgroundTaskStoreError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard Self.lock(descriptor) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw BackgroundTaskStoreError(
                busy ? "\(directory.path) is in use by another session (another process holds \(path))"
                    : "cannot lock \(path): \(reason)")
        }
        let earlier = lockDescriptor.withLock { held -> Int32? in
            defer { held = descriptor }
            return held
        }
        // A second claim by the same store replaces the first lock (the same file, so no gap).
        if let earlier { close(earlier) }
    }

    /// How long a held lock is tried again before the claim fails. A child that another thread of
    /// this process is spawning holds a duplicate of every descriptor, and with it the lock, until
    /// its `exec` closes them (`O_CLOEXEC` acts only then): a lock released just before can look held
    /// for that moment, which on a loaded machine lasts milliseconds. A session that really holds the
    /// directory holds it far longer.
    static let heldLockGrace: Duration = .seconds(1)

    /// `flock(LOCK_EX | LOCK_NB)`, tried again while it finds the lock held, for `heldLockGrace`.
    /// Returns flock's result, with errno set as it left it.
    private static func lock(_ descriptor: Int32) -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: heldLockGrace)
        while true {
            let result = flock(descriptor, LOCK_EX | LOCK_NB)
            guard result != 0, errno == EWOULDBLOCK, clock.now < deadline else { return result }
            usleep(10_000)
            errno = EWOULDBLOCK
        }
    }

    public func relinquish() {
        if let descriptor = lockDescriptor.withLock({ held -> Int32? in
            defer { held = nil }
            return held
        }) {
            close(descriptor)
        }
    }

    deinit { relinquish() }

    // MARK: - Records

    public func loadRecords() -> BackgroundTaskStoreContents {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: tasksDirectory.path)
        } catch {
            // No directory yet: nothing was ever saved.
            return BackgroundTaskStoreContents(records: [])
        }
        var records: [BackgroundTaskRecord] = []
        var skipped: [BackgroundTaskStoreProblem] = []
        for name in names.sorted() {
            let file = tasksDirectory.appendingPathComponent(name)
            if name.hasPrefix(".") && name.hasSuffix(".tmp") {
                // A write a killed process did not finish: the record it was replacing is still there.
                unlink(file.path)
                continue
            }
            guard name.hasSuffix(".json") else { continue }
            do throws(BackgroundTaskStoreError) {
                let record = try BackgroundTaskRecord(jsonData: try read(file))
                guard name == Self.fileName(for: record.taskIdentifier) else {
                    throw BackgroundTaskStoreError("it holds task \(record.taskIdentifier)")
                }
                records.append(record)
            } catch {
                // Set aside, so that it is reported once and not taken for a new entry next time.
                rename(file.path, file.path + ".damaged")
                skipped.append(BackgroundTaskStoreProblem(entry: file.path, reason: error.description + " (kept as \(name).damaged)"))
            }
        }
        return BackgroundTaskStoreContents(records: records.sorted { $0.taskIdentifier < $1.taskIdentifier }, skipped: skipped)
    }

    public func save(_ record: BackgroundTaskRecord) throws(BackgroundTaskStoreError) {
        let name = Self.fileName(for: record.taskIdentifier)
        let final = tasksDirectory.appendingPathComponent(name)
        let temporary = tasksDirectory.appendingPathComponent(".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        try writeDurably(try record.jsonData(), to: temporary)
        guard rename(temporary.path, final.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw BackgroundTaskStoreError("cannot rename \(temporary.path) to \(final.path): \(reason)")
        }
    }

    public func removeRecord(taskIdentifier: Int) {
        unlink(tasksDirectory.appendingPathComponent(Self.fileName(for: taskIdentifier)).path)
    }

    static func fileName(for taskIdentifier: Int) -> String { "\(taskIdentifier).json" }

    // MARK: - Files

    private func read(_ file: URL) throws(BackgroundTaskStoreError) -> Data {
        do {
            return try Data(contentsOf: file)
        } catch {
            throw BackgroundTaskStoreError("cannot read it: \(error.localizedDescription)")
        }
    }

    /// Writes `data` to a new private file and flushes it, so that the rename that follows never
    /// exposes an empty or short record after a crash of the machine.
    private func writeDurably(_ data: Data, to file: URL) throws(BackgroundTaskStoreError) {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BackgroundTaskStoreError("cannot create \(file.path): \(String(cString: strerror(errno)))")
        }
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if let failure {
            unlink(file.path)
            throw BackgroundTaskStoreError("cannot write \(file.path): \(failure)")
        }
    }
}
