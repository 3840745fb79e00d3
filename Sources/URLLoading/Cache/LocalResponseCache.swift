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
        /// The storage keys of each URL's variants, in either tier.
        var variants = VariantIndex()

        mutating func nextUse() -> UInt64 {
            use += 1
            return use
        }

        var memoryUsage: Int { memory.values.reduce(0) { $0 + $1.entry.cost } }

        mutating func recordVariant(_ key: String) {
            let (memory, disk) = (memory, disk)
            variants.insert(key) { Array(Set(memory.keys).union(disk?.records.keys ?? [:].keys)) }
        }
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
            for key in disk.records.keys { initial.recordVariant(key) }
        }
        state = Locked(initial)
    }

    public var currentMemoryUsage: Int { state.withLock { $0.memoryUsage } }
    public var currentDiskUsage: Int { state.withLock { $0.disk?.usage ?? 0 } }

    public func cachedResponse(for request: TransferRequest) -> CachedResponse? {
        guard let url = ResponseCacheKey.key(for: request) else { return nil }
        return state.withLock { state -> CachedResponse? in
            guard let key = Self.preferredVariant(of: url, for: request, in: &state) else { return nil }
            if let found = state.memory[key] {
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
            let use = state.nextUse()
            state.disk?.touch(key, use: use)
            if inMemory {
                Self.putInMemory(entry, key: key, use: use, storedAt: record.storedAt, capacity: memoryCapacity, state: &state)
            }
            return entry
        }
    }

    public func storeCachedResponse(_ cachedResponse: CachedResponse, for request: TransferRequest) {
        guard let url = ResponseCacheKey.key(for: request), let key = ResponseCacheKey.storageKey(of: cachedResponse, for: request)
        else { return }
        let now = Date()
        state.withLock { state in
            // The entry replaces its own variant, and those of a Vary the resource no longer sends.
            let replaced = Self.variants(of: url, in: &state).filter { variant, head in
                variant == key || ResponseCacheKey.replaces(cachedResponse, head)
            }.map(\.key)
            for variant in replaced { state.memory[variant] = nil }
            // The disk write below replaces its own key's record; without one, the old record goes too.
            let writesToDisk = cachedResponse.storagePolicy == .allowed && cachedResponse.cost <= diskCapacity / 10
            state.disk?.remove(replaced.filter { $0 != key || !writesToDisk })
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
                state.recordVariant(key)
            } catch {
                // A full or read-only disk loses the entry's disk copy, nothing else.
                disk.remove([key])
            }
            disk.remove(disk.leastRecentlyUsed(toFit: diskCapacity))
            state.disk = disk
        }
    }

    /// Removes every variant of the request's URL.
    public func removeCachedResponse(for request: TransferRequest) {
        guard let url = ResponseCacheKey.key(for: request) else { return }
        state.withLock { state in
            let keys = Self.variants(of: url, in: &state).map(\.key)
            for key in keys { state.memory[key] = nil }
            state.disk?.remove(keys)
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

    /// The URL's variants in either tier, by storage key, each with its head (a disk record's body
    /// is not read here).
    private static func variants(of url: String, in state: inout State) -> [(key: String, head: CachedResponse)] {
        let (memory, disk) = (state.memory, state.disk)
        let keys = state.variants.keys(of: url) { memory[$0] != nil || disk?.records[$0] != nil }
        return keys.compactMap { key in
            if let entry = memory[key]?.entry { return (key, entry) }
            guard let disk, let record = disk.records[key], let head = disk.entry(of: record, body: .data(Data())) else { return nil }
            return (key, head)
        }
    }

    private static func preferredVariant(of url: String, for request: TransferRequest, in state: inout State) -> String? {
        ResponseCacheKey.preferredVariant(of: variants(of: url, in: &state), for: request, entry: \.head)?.key
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
        state.recordVariant(key)
        var usage = state.memoryUsage
        for (victim, value) in state.memory.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where usage > capacity {
            usage -= value.entry.cost
            state.memory[victim] = nil
        }
    }
}
