import FerryModel
import Foundation
import Logging
import PostgresNIO

/// Removes partial downloads that belong to no job any more (issue 18: "no partial file outlives its
/// job"): what a killed attempt was writing before it stored resume data, the file of a job that was
/// cancelled or failed while its worker was gone, the file a stopped worker kept writing after its
/// job was taken over and continued in a copy.
///
/// A temporary file in a tenant's directory is kept when a job that has not ended names it in its
/// resume data, or when its name (`PartialFileName`) says it is of the attempt running now. Files are
/// listed before the jobs are read: a file made after the listing is not looked at, and one listed
/// belongs to an attempt that had started by then. Files with the engine's default names (from a
/// version before attempts named their files) are kept for a day after they were last written.
public struct PartialFileSweep: Sendable {
    let client: DatabasePool
    let files: GatewayFiles
    let logger: Logger

    public init(client: DatabasePool, files: GatewayFiles, logger: Logger) {
        self.client = client
        self.files = files
        self.logger = logger
    }

    static let untaggedGrace: TimeInterval = 86_400

    /// Removes what no job holds; returns how many files went.
    @discardableResult
    public func run() async throws -> Int {
        let found = listTemporaryFiles()
        guard !found.isEmpty else { return 0 }
        let live = try await liveFiles(among: found)
        var removed = 0
        for file in found where !live.contains(file.path) {
            if file.name == nil, Date().timeIntervalSince(file.modified) < Self.untaggedGrace { continue }
            if unlink(file.path) == 0 { removed += 1 }
        }
        if removed > 0 { logger.info("removed partial files no job holds", metadata: ["files": "\(removed)"]) }
        return removed
    }

    struct Found {
        var path: String
        var name: PartialFileName?
        var modified: Date
    }

    /// Every temporary file under `<data>/files/<tenant>/`.
    func listTemporaryFiles() -> [Found] {
        let root = "\(files.dataDirectory)/files"
        let manager = FileManager.default
        guard let tenants = try? manager.contentsOfDirectory(atPath: root) else { return [] }
        var found: [Found] = []
        for tenant in tenants {
            let directory = "\(root)/\(tenant)"
            guard let names = try? manager.contentsOfDirectory(atPath: directory) else { continue }
            for name in names where PartialFileName.isTemporary(name) {
                let path = "\(directory)/\(name)"
                var status = stat()
                guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
                found.append(Found(
                    path: path, name: PartialFileName(fileName: name),
                    modified: Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec))))
            }
        }
        return found
    }

    /// The paths among `found` that a job still holds: named by the resume data of a job that has not
    /// ended, or made by the attempt of a job running now. Names are compared, not paths: every name
    /// holds a UUID, and resume data holds the path as the engine spelt it (a relative data directory
    /// made absolute, say).
    private func liveFiles(among found: [Found]) async throws -> Set<String> {
        let names = found.map { ($0.path as NSString).lastPathComponent }
        let tagged = found.filter { $0.name != nil }
        let taggedNames = tagged.map { ($0.path as NSString).lastPathComponent }
        let jobs = tagged.compactMap { $0.name?.job }
        let attempts = tagged.compactMap { $0.name.map { Int64($0.attempt) } }
        let running = JobState.running.rawValue
        let ended = JobState.allCases.filter(\.isTerminal).map(\.rawValue)
        let rows = try await client.query(
            """
            SELECT substring(resume_data->>'partial_file' from '[^/]*$') FROM jobs
            WHERE resume_data IS NOT NULL AND state <> ALL(\(ended)::text[])
              AND substring(resume_data->>'partial_file' from '[^/]*$') = ANY(\(names)::text[])
            UNION
            SELECT t.name FROM unnest(\(taggedNames)::text[], \(jobs)::uuid[], \(attempts)::bigint[]) AS t(name, job, attempt)
            JOIN jobs j ON j.id = t.job AND j.attempt = t.attempt AND j.state = \(running)
            """, logger: logger)
        var live = Set<String>()
        for try await name in rows.decode(String?.self) { if let name { live.insert(name) } }
        return Set(found.map(\.path).filter { live.contains(($0 as NSString).lastPathComponent) })
    }
}
