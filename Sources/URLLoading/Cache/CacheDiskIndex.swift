import Foundation

/// The on-disk part of `LocalResponseCache`: `index.json` describes every entry, each body lives in a
/// file of its own beside it. Both are written to a temporary file and renamed into place, so a crash
/// leaves the old or the new version, never half of one; an index that cannot be read starts an empty
/// cache (and its body files are removed).
struct CacheDiskIndex {
    struct Record: Codable {
        var key: String
        var bodyFile: String
        var cost: Int
        /// Larger is more recently used (LRU).
        var lastUse: UInt64
        var storedAt: Date
        var url: String
        var statusCode: Int?
        var headers: HTTPHeaders
        var httpVersion: String?
        var expectedContentLength: Int64?
        var userInfo: [String: String]
        var requestDate: Date
        var responseDate: Date
        var varyingRequestHeaders: [String: String]
    }

    private struct File: Codable {
        var version = 1
        var records: [Record]
    }

    let directory: URL
    private(set) var records: [String: Record] = [:]

    var usage: Int { records.values.reduce(0) { $0 + $1.cost } }
    var highestUse: UInt64 { records.values.map(\.lastUse).max() ?? 0 }

    private var indexFile: URL { directory.appendingPathComponent("index.json") }

    /// Opens (or creates) the cache directory and reads its index.
    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let data = try? Data(contentsOf: indexFile) else { return }
        if let file = try? JSONDecoder().decode(File.self, from: data), file.version == 1 {
            for record in file.records where FileManager.default.fileExists(atPath: bodyURL(record.bodyFile).path) {
                records[record.key] = record
            }
        }
        removeOrphanBodies()
    }

    /// The record's body: read into memory, or (`reading` false) its file, when it is there.
    func body(of record: Record, reading: Bool) -> CachedResponse.Body? {
        let url = bodyURL(record.bodyFile)
        if reading { return (try? Data(contentsOf: url)).map(CachedResponse.Body.data) }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let size = attributes[.size] as? NSNumber else { return nil }
        return .file(url, length: size.int64Value)
    }

    func entry(of record: Record, body: CachedResponse.Body) -> CachedResponse? {
        guard let url = URL(string: record.url) else { return nil }
        let response = TransferResponse(
            url: url, statusCode: record.statusCode, headers: record.headers, httpVersion: record.httpVersion,
            expectedContentLength: record.expectedContentLength)
        return CachedResponse(
            response: response, body: body, userInfo: record.userInfo, storagePolicy: .allowed,
            requestDate: record.requestDate, responseDate: record.responseDate,
            varyingRequestHeaders: record.varyingRequestHeaders)
    }

    /// Writes the body, then the index that names it.
    mutating func store(_ entry: CachedResponse, key: String, use: UInt64, storedAt: Date) throws {
        let name = UUID.random().uuidString + ".body"
        // A copy, not a link: a download's file is the caller's to change afterwards.
        try CachedBodyFile.write(entry.body, to: bodyURL(name), linking: false)
        let old = records[key]
        records[key] = Record(
            key: key, bodyFile: name, cost: entry.cost, lastUse: use, storedAt: storedAt,
            url: entry.response.url.absoluteString, statusCode: entry.response.statusCode, headers: entry.response.headers,
            httpVersion: entry.response.httpVersion, expectedContentLength: entry.response.expectedContentLength,
            userInfo: entry.userInfo, requestDate: entry.requestDate, responseDate: entry.responseDate,
            varyingRequestHeaders: entry.varyingRequestHeaders)
        try saveIndex()
        if let old { try? FileManager.default.removeItem(at: bodyURL(old.bodyFile)) }
    }

    mutating func touch(_ key: String, use: UInt64) {
        records[key]?.lastUse = use
        try? saveIndex()
    }

    mutating func remove(_ keys: [String]) {
        guard !keys.isEmpty else { return }
        for key in keys {
            if let record = records.removeValue(forKey: key) { try? FileManager.default.removeItem(at: bodyURL(record.bodyFile)) }
        }
        try? saveIndex()
    }

    /// The least recently used keys whose removal brings usage to `limit` or below.
    func leastRecentlyUsed(toFit limit: Int) -> [String] {
        var usage = self.usage
        var victims: [String] = []
        for record in records.values.sorted(by: { $0.lastUse < $1.lastUse }) where usage > limit {
            usage -= record.cost
            victims.append(record.key)
        }
        return victims
    }

    private func saveIndex() throws {
        let file = File(records: records.values.sorted { $0.lastUse < $1.lastUse })
        try JSONEncoder().encode(file).write(to: indexFile, options: .atomic)
    }

    private func bodyURL(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// Bodies the index does not name: left by a crash between writing a body and the index.
    private func removeOrphanBodies() {
        let named = Set(records.values.map(\.bodyFile))
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files where file.hasSuffix(".body") && !named.contains(file) {
            try? FileManager.default.removeItem(at: bodyURL(file))
        }
    }
}
