/// Which storage keys hold entries for each URL key (`ResponseCacheKey`): a lookup reads a URL's
/// few variants instead of scanning a cache of many thousands of entries.
///
/// Caches tell it every key they insert, not every key they drop (eviction and removal happen in
/// many places): it may name keys that are gone, which a lookup checks and forgets, and it is
/// rebuilt from the live keys whenever it grows to twice their number.
public struct VariantIndex: Sendable {
    private var keysByURL: [String: Set<String>] = [:]
    private var count = 0
    /// Past this many keys the index is rebuilt: twice the live keys at the last rebuild.
    private var rebuildAt = 1024

    public init() {}

    /// Records `storageKey`. `liveKeys` (asked only when the index has grown to twice the live keys
    /// of its last rebuild, so rarely enough to cost O(1) per insert) are the keys the cache holds now.
    public mutating func insert(_ storageKey: String, liveKeys: () -> [String]) {
        if keysByURL[Self.url(of: storageKey), default: []].insert(storageKey).inserted { count += 1 }
        guard count > rebuildAt else { return }
        let live = liveKeys()
        keysByURL = [:]
        count = 0
        for key in live where keysByURL[Self.url(of: key), default: []].insert(key).inserted { count += 1 }
        rebuildAt = max(1024, 2 * count)
    }

    /// The URL's storage keys that `isLive` says the cache still holds; the others are forgotten.
    public mutating func keys(of url: String, isLive: (String) -> Bool) -> [String] {
        guard let keys = keysByURL[url] else { return [] }
        let live = keys.filter(isLive)
        if live.count != keys.count {
            count -= keys.count - live.count
            keysByURL[url] = live.isEmpty ? nil : live
        }
        return Array(live)
    }

    /// The URL key a storage key belongs to: what comes before its first line break.
    private static func url(of storageKey: String) -> String {
        guard let newline = storageKey.utf8.firstIndex(of: UInt8(ascii: "\n")) else { return storageKey }
        return String(storageKey[..<newline])
    }
}
