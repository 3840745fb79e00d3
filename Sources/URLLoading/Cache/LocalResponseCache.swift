import Foundation

/// A response cache in memory and, optionally, in a directory (CA-02, CA-03, CA-18..CA-21), each
/// with its own capacity in bytes and least-recently-used eviction. A new cache on the same
/// directory (in a new session, or a new process) finds what an earlier one stored there.
///
/// An entry larger than a tenth of a tier's capacity is not kept in that tier. Entries stored
/// `allowedInMemoryOnly` never reach the disk. Thread-safe; disk writes happen on the caller's thread,
/// under the cache's lock.
public final class LocalResponseCache: ResponseCache {
    public let memoryCapacity: Int
    public let diskCapacity: Int
    /// Where entries are kept on disk; nil for a memory-only cache.
    public let directory: URL?

    private struct MemoryEntry {
        var entry: CachedResponse
        var lastUse: UInt64
        var storedAt: Date
    }

    private struct State {
        var memory: [String: MemoryEntry] = [:]
        var disk: CacheDiskIndex?
        var use: UInt64 = 0

        mutating func nextUse() -> UInt64 {
            use += 1
            return use
        }

        var memoryUsage: Int { memory.values.reduce(0) { $0 + $1.entry.cost } }
    }

    private let state: Locked<State>

    /// A cache of `memoryCapacity` bytes in memory and `diskCapacity` bytes in `directory` (created if
    /// missing). Throws when the directory cannot be created.
    public init(memoryCapacity: Int, diskCapacity: Int = 0, directory: URL? = nil) throws {
        self.memoryCapacity = max(0, memoryCapacity)
        self.diskCapacity = directory == nil ? 0 : max(0, diskCapacity)
        self.directory = directory
        var initial = State()
        if let directory, diskCapacity > 0 {
            let disk = try CacheDiskIndex(directory: directory)
            initial.use = disk.highestUse
            initial.disk = disk
        }
        state = Locked(initial)
    }

    public var currentMemoryUsage: Int { state.withLock { $0.memoryUsage } }
    public var currentDiskUsage: Int { state.withLock { $0.disk?.usage ?? 0 } }

    public func cachedResponse(for request: TransferRequest) -> CachedResponse? {
        guard let key = ResponseCacheKey.key(for: request) else { return nil }
        return state.withLock { state -> CachedResponse? in
            if let found = state.memory[key] {
                guard ResponseCacheKey.varyMatches(found.entry, request) else { return nil }
                let use = state.nextUse()
                state.memory[key]?.lastUse = use
                if state.disk?.records[key] != nil { state.disk?.touch(key, use: use) }
                return found.entry
            }
            guard let disk = state.disk, let record = disk.records[key] else { return nil }
            // A body the memory tier could keep is read once, and the next lookups come from memory;
            // a bigger one is served from its file.
            let inMemory = record.cost <= memoryCapacity / 10
            guard let body = disk.body(of: record, reading: inMemory), let entry = disk.entry(of: record, body: body) else {
                state.disk?.remove([key])
                return nil
            }
            guard ResponseCacheKey.varyMatches(entry, request) else { return nil }
            let use = state.nextUse()
            state.disk?.touch(key, use: use)
            if inMemory {
                Self.putInMemory(entry, key: key, use: use, storedAt: record.storedAt, capacity: memoryCapacity, state: &state)
            }
            return entry
        }
    }

    public func storeCachedResponse(_ cachedResponse: CachedResponse, for request: TransferRequest) {
        guard let key = ResponseCacheKey.key(for: request) else { return }
        let now = Date()
        state.withLock { state in
            state.memory[key] = nil
            if cachedResponse.storagePolicy != .allowed { state.disk?.remove([key]) }
            guard cachedResponse.storagePolicy != .notAllowed else { return }
            var entry = cachedResponse
            entry.response.cacheStatus = nil
            let use = state.nextUse()
            if entry.cost <= memoryCapacity / 10, let inMemory = Self.readingBody(of: entry) {
                Self.putInMemory(inMemory, key: key, use: use, storedAt: now, capacity: memoryCapacity, state: &state)
            }
            guard entry.storagePolicy == .allowed, var disk = state.disk, entry.cost <= diskCapacity / 10 else { return }
            do {
                try disk.store(entry, key: key, use: use, storedAt: now)
            } catch {
                // A full or read-only disk loses the entry's disk copy, nothing else.
                disk.remove([key])
            }
            disk.remove(disk.leastRecentlyUsed(toFit: diskCapacity))
            state.disk = disk
        }
    }

    public func removeCachedResponse(for request: TransferRequest) {
        guard let key = ResponseCacheKey.key(for: request) else { return }
        state.withLock { state in
            state.memory[key] = nil
            state.disk?.remove([key])
        }
    }

    public func removeCachedResponses(since date: Date) {
        state.withLock { state in
            state.memory = state.memory.filter { $0.value.storedAt < date }
            if let records = state.disk?.records {
                state.disk?.remove(records.values.filter { $0.storedAt >= date }.map(\.key))
            }
        }
    }

    public func removeAllCachedResponses() {
        state.withLock { state in
            state.memory = [:]
            if let keys = state.disk?.records.keys { state.disk?.remove(Array(keys)) }
        }
    }

    /// The entry with its body in memory: a file body is read (the caller checked that it fits the
    /// memory tier); nil when it cannot be.
    private static func readingBody(of entry: CachedResponse) -> CachedResponse? {
        guard case .file(let url, let length) = entry.body else { return entry }
        guard let data = try? Data(contentsOf: url), data.count == length else { return nil }
        var read = entry
        read.body = .data(data)
        return read
    }

    private static func putInMemory(
        _ entry: CachedResponse, key: String, use: UInt64, storedAt: Date, capacity: Int, state: inout State
    ) {
        guard entry.cost <= capacity / 10 else { return }
        state.memory[key] = MemoryEntry(entry: entry, lastUse: use, storedAt: storedAt)
        var usage = state.memoryUsage
        for (victim, value) in state.memory.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where usage > capacity {
            usage -= value.entry.cost
            state.memory[victim] = nil
        }
    }
}
