import FerryStore
import Foundation
import Synchronization
import URLLoading

/// A tenant's HTTP cache as the engine uses it on one ferryd (CA-02, CA-03, CA-17..CA-20): bodies
/// are files under `<data>/cache/<tenant>/`, the index is in memory here and in PostgreSQL
/// (`TenantCacheIndex`) for every ferryd of the database.
///
/// The engine calls it synchronously on its transfer threads, so it never waits for the database:
/// `refresh(from:)` brings in, before each job, the entries other ferryds stored since the last look,
/// and `flush(to:)`, after each job, writes what changed here (new entries, uses, removals), enforces
/// the tenant's size limit across all ferryds (least recently used first) and removes the files of
/// entries that went. Only the tenant's own entries are ever here: tenants never share one, and one
/// tenant's use never evicts another's.
///
/// No memory tier: a hit is served from the body's file in chunks (the page cache keeps hot ones in
/// memory), and a download's body is stored by linking its file.
final class TenantResponseCache: ResponseCache {
    let tenantID: UUID
    /// The tenant's limit in bytes (`FERRY_CACHE_MAX_BYTES_PER_TENANT`); an entry may take a tenth.
    let diskCapacity: Int
    var memoryCapacity: Int { 0 }
    var currentMemoryUsage: Int { 0 }
    var currentDiskUsage: Int { state.withLock { $0.entries.values.reduce(0) { $0 + $1.cost } } }
    /// Every job of the tenant uses this cache, each with its own credentials (RFC 9111 §3.5).
    var isSharedAmongCredentials: Bool { true }

    private let files: GatewayFiles
    private var directory: String { "cache/\(tenantID.uuidString.lowercased())" }

    typealias PendingWrite = TenantCachePendingWrite

    private struct State {
        var entries: [String: TenantCacheEntry] = [:]
        var pending: [String: PendingWrite] = [:]
        var seenRevision: Int64 = 0
        var lastFullLoad: ContinuousClock.Instant?
        /// The storage keys of each URL's variants.
        var variants = VariantIndex()

        mutating func put(_ entry: TenantCacheEntry) {
            entries[entry.key] = entry
            let entries = entries
            variants.insert(entry.key) { Array(entries.keys) }
        }
    }

    private let state = Mutex(State())
    /// Past this long since the last whole read of the index, the next refresh reads it whole again
    /// (dropping what other ferryds removed); in between it reads only newer revisions.
    static let fullReloadInterval = Duration.seconds(300)

    init(tenantID: UUID, maximumBytes: Int, files: GatewayFiles) {
        self.tenantID = tenantID
        self.diskCapacity = maximumBytes
        self.files = files
    }

    var hasPendingWrites: Bool { state.withLock { !$0.pending.isEmpty } }

    // MARK: - ResponseCache, called by the engine

    func cachedResponse(for request: TransferRequest) -> CachedResponse? {
        guard let url = ResponseCacheKey.key(for: request),
            let (key, entry) = state.withLock({ state in
                ResponseCacheKey.preferredVariant(of: Self.variants(of: url, in: &state), for: request, entry: \.head)
                    .map { ($0.key, $0.entry) }
            })
        else { return nil }
        guard let path = files.absolute(entry.bodyFile), let length = Self.fileLength(path),
            let cached = entry.cachedResponse(body: .file(URL(fileURLWithPath: path), length: length))
        else {
            // Its file went: another ferryd evicted or replaced it, and this index had not seen that yet.
            state.withLock { state in
                guard state.entries[key]?.bodyFile == entry.bodyFile else { return }
                state.entries[key] = nil
                state.pending[key] = .remove(bodyFile: entry.bodyFile)
            }
            return nil
        }
        let now = Date()
        state.withLock { state in
            guard state.entries[key]?.bodyFile == entry.bodyFile else { return }
            state.entries[key]?.lastUsedAt = now
            switch state.pending[key] {
            case .store(var stored)?:
                stored.lastUsedAt = now
                state.pending[key] = .store(stored)
            case .remove?:
                break
            case .use?, nil:
                state.pending[key] = .use(now)
            }
        }
        return cached
    }

    func storeCachedResponse(_ cachedResponse: CachedResponse, for request: TransferRequest) {
        guard let url = ResponseCacheKey.key(for: request), let key = ResponseCacheKey.storageKey(of: cachedResponse, for: request)
        else { return }
        // The entry replaces its own variant, and those of a Vary the resource no longer sends.
        let replaced = state.withLock { state in
            Self.variants(of: url, in: &state).filter { variant in
                variant.key != key && ResponseCacheKey.replaces(cachedResponse, variant.head)
            }.map(\.key)
        }
        for variant in replaced { removeEntry(variant) }
        // Only whole-disk entries: this cache has no memory tier for `allowedInMemoryOnly` ones, and an
        // entry over a tenth of the limit would push out too much (the engine's own caches' rule).
        guard cachedResponse.storagePolicy == .allowed, cachedResponse.cost <= diskCapacity / 10 else {
            removeEntry(key)
            return
        }
        let bodyFile = "\(directory)/\(UUID.random().uuidString.lowercased()).body"
        guard let path = files.absolute(bodyFile) else { return }
        do {
            try files.makeDirectory(directory)
            // A download's file is linked, not copied: the gateway never rewrites a finished job's
            // file in place (a deleted one is unlinked, or recycled only when no link shares it).
            try CachedBodyFile.write(cachedResponse.body, to: URL(fileURLWithPath: path), linking: true)
        } catch {
            // A full or read-only disk costs the entry, nothing else.
            removeEntry(key)
            return
        }
        let entry = TenantCacheEntry(key: key, bodyFile: bodyFile, storing: cachedResponse, at: Date())
        let unused = state.withLock { state -> [String] in
            var unused: [String] = []
            if let old = state.entries[key] { unused.append(old.bodyFile) }
            state.put(entry)
            state.pending[key] = .store(entry)
            var usage = state.entries.values.reduce(0) { $0 + $1.cost }
            for victim in state.entries.values.sorted(by: { $0.lastUsedAt < $1.lastUsedAt }) where usage > diskCapacity {
                usage -= victim.cost
                state.entries[victim.key] = nil
                state.pending[victim.key] = .remove(bodyFile: victim.bodyFile)
                unused.append(victim.bodyFile)
            }
            return unused
        }
        removeFiles(unused)
    }

    /// Removes every variant of the request's URL.
    func removeCachedResponse(for request: TransferRequest) {
        guard let url = ResponseCacheKey.key(for: request) else { return }
        for key in state.withLock({ Self.variants(of: url, in: &$0).map(\.key) }) { removeEntry(key) }
    }

    /// The URL's variants, each with the head the engine compares (the body is not opened here).
    private static func variants(of url: String, in state: inout State) -> [(key: String, entry: TenantCacheEntry, head: CachedResponse)] {
        let entries = state.entries
        return state.variants.keys(of: url) { entries[$0] != nil }.compactMap { key in
            guard let entry = entries[key], let head = entry.cachedResponse(body: .data(Data())) else { return nil }
            return (key, entry, head)
        }
    }

    func removeCachedResponses(since date: Date) {
        let keys = state.withLock { $0.entries.values.filter { $0.storedAt >= date }.map(\.key) }
        for key in keys { removeEntry(key) }
    }

    func removeAllCachedResponses() {
        for key in state.withLock({ Array($0.entries.keys) }) { removeEntry(key) }
    }

    private static func fileLength(_ path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }

    private func removeEntry(_ key: String) {
        let removed = state.withLock { state -> TenantCacheEntry? in
            guard let entry = state.entries.removeValue(forKey: key) else { return nil }
            state.pending[key] = .remove(bodyFile: entry.bodyFile)
            return entry
        }
        if let removed { removeFiles([removed.bodyFile]) }
    }

    private func removeFiles(_ relativePaths: [String]) {
        for relative in relativePaths {
            if let path = files.absolute(relative) { unlink(path) }
        }
    }

    // MARK: - Following the shared index

    /// Brings in the entries other ferryds stored since the last look (all of them now and then).
    /// Entries changed here and not yet written stay as they are here: they are newer.
    func refresh(from index: TenantCacheIndex) async throws {
        let (after, whole) = state.withLock { state -> (Int64, Bool) in
            let whole = state.lastFullLoad.map { ContinuousClock.now - $0 > Self.fullReloadInterval } ?? true
            return (whole ? 0 : state.seenRevision, whole)
        }
        let started = ContinuousClock.now
        let (rows, revision) = try await index.entries(tenant: tenantID, afterRevision: after)
        take(rows, revision: revision, whole: whole, started: started)
    }

    /// Out of line: every job's task refreshes at its start and keeps the memory of its deepest
    /// async frames until it ends (a thousand jobs at once, bench P5).
    @inline(never)
    private func take(_ rows: [TenantCacheEntry], revision: Int64, whole: Bool, started: ContinuousClock.Instant) {
        state.withLock { state in
            if whole {
                let kept = state.entries.filter { state.pending[$0.key] != nil }
                state.entries = kept
                state.lastFullLoad = started
            }
            for row in rows where state.pending[row.key] == nil {
                state.put(row)
            }
            state.seenRevision = max(state.seenRevision, revision)
        }
    }

    /// Writes what changed here since the last flush; what cannot be written is kept for the next.
    func flush(to index: TenantCacheIndex) async throws {
        let pending = state.withLock { state -> [String: PendingWrite] in
            defer { state.pending = [:] }
            return state.pending
        }
        guard !pending.isEmpty else { return }
        let unused: [String]
        do {
            unused = try await index.write(pending, tenant: tenantID, limit: diskCapacity)
        } catch {
            state.withLock { state in
                for (key, write) in pending where state.pending[key] == nil { state.pending[key] = write }
            }
            throw error
        }
        // Files the index let go: replaced entries of other ferryds, and those the limit evicted.
        let removable = state.withLock { state -> [String] in
            let gone = Set(unused)
            for (key, entry) in state.entries where gone.contains(entry.bodyFile) && state.pending[key] == nil {
                state.entries[key] = nil
            }
            let stillNamed = Set(state.entries.values.map(\.bodyFile))
            return unused.filter { !stillNamed.contains($0) }
        }
        removeFiles(removable)
    }
}
