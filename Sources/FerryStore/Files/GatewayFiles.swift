import Foundation

/// Where the gateway keeps files under its data directory. Database rows store paths relative to the
/// data directory, so the directory can move; every ferryd sharing a database shares this directory.
///
/// ```
/// <data>/files/<tenant>/<job>          a succeeded job's content
/// <data>/files/<tenant>/partial-<job>-<attempt>-<uuid>.tmp
///                                      downloads in progress and partial files of paused jobs
///                                      (PartialFileName; swept by PartialFileSweep)
/// <data>/blobs/<tenant>/<blob>         bodies uploaded with PUT /v1/blobs
/// <data>/cache/<tenant>/<entry>.body  bodies of the tenant's HTTP cache (index: cache_entries)
/// <data>/spare/<name>                  deleted jobs' files, emptied, for the next downloads (SpareFiles)
/// ```
public struct GatewayFiles: Sendable {
    public let dataDirectory: String
    /// Deleted jobs' files kept for new downloads; shared by every copy of this value.
    public let spares: SpareFiles

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        spares = SpareFiles(directory: "\(dataDirectory)/spare")
    }

    public func jobDirectory(tenant: UUID) -> String { "files/\(tenant.uuidString.lowercased())" }
    public func jobContent(tenant: UUID, job: UUID) -> String { "\(jobDirectory(tenant: tenant))/\(job.uuidString.lowercased())" }
    public func blobDirectory(tenant: UUID) -> String { "blobs/\(tenant.uuidString.lowercased())" }
    public func blob(tenant: UUID, blob: UUID) -> String { "\(blobDirectory(tenant: tenant))/\(blob.uuidString.lowercased())" }

    /// The absolute path of a stored relative one. Paths come only from the gateway's own rows, but
    /// a `..` is refused anyway, so no row can point outside the data directory.
    public func absolute(_ relative: String) -> String? {
        guard !relative.hasPrefix("/"), !relative.split(separator: "/").contains("..") else { return nil }
        return "\(dataDirectory)/\(relative)"
    }

    /// Makes a relative directory (and its parents) if missing, private to ferryd. Called for every
    /// job attempt, whose tenant's directory is there but for the first: one mkdir(2) answers that.
    public func makeDirectory(_ relative: String) throws {
        let path = "\(dataDirectory)/\(relative)"
        if mkdir(path, 0o700) == 0 {
            _ = chmod(path, 0o700)  // whatever the umask, as createDirectory below does
            return
        }
        if errno == EEXIST { return }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}
