import Crypto
import FerryModel
import FerryStore
import Foundation
import Hummingbird

/// `PUT /v1/blobs`, `GET /v1/blobs` and `DELETE /v1/blobs/{id}`: a body for later upload jobs, streamed to disk (never held whole in memory) and
/// hashed on the way. The row is written only once the file is complete, so a broken upload leaves
/// neither a row nor a file.
struct BlobRoutes {
    let blobs: BlobStore
    let files: GatewayFiles
    static let maximumSize: Int64 = 64 << 30
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")

    struct BlobView: ResponseEncodable {
        var id: String
        var size: Int64
        var sha256: String
        var contentType: String?
        /// In listings; the reply to PUT has none (the blob was stored just then).
        var createdAt: String?
        enum CodingKeys: String, CodingKey {
            case id, size, sha256
            case contentType = "content_type"
            case createdAt = "created_at"
        }
    }

    /// `GET /v1/blobs`: a page, newest first, and the cursor of the next one (nil on the last).
    struct BlobPage: ResponseEncodable {
        var blobs: [BlobView]
        var nextCursor: String?
        enum CodingKeys: String, CodingKey {
            case blobs
            case nextCursor = "next_cursor"
        }
    }

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.put("/blobs") { request, context in
            let tenant = try context.requireTenant()
            let id = UUID()
            let relative = files.blob(tenant: tenant, blob: id)
            try files.makeDirectory(files.blobDirectory(tenant: tenant))
            guard let path = files.absolute(relative) else { throw Problem(.internalServerError, code: "internal_error", "bad blob path") }
            // Refused before a byte is written when the declared length does not fit, else as soon
            // as the bytes that arrived do not; `insert` counts again, as other blobs may have come.
            let standing = try await blobs.storageStanding(tenant: tenant)
            if let standing, let declared = request.headers[.contentLength].flatMap({ Int64($0) }), declared > standing.allowance {
                throw Problem(StorageQuota.exceeded(standing, adding: declared, what: "the blob"))
            }
            let (size, digest) = try await Self.store(request.body, at: path, quota: standing)
            let contentType = request.headers[.contentType]
            do {
                try await blobs.insert(id: id, tenant: tenant, size: size, sha256: digest, contentType: contentType, path: relative)
            } catch {
                unlink(path)
                throw error
            }
            return EditedResponse(status: .created, response: BlobView(id: id.lowercasedString, size: size, sha256: digest, contentType: contentType))
        }
        group.get("/blobs") { request, context in
            let tenant = try context.requireTenant()
            var errors: [Problem.FieldError] = []
            let parameters = PageParameters(request, errors: &errors)
            guard errors.isEmpty else { throw Problem.invalid(errors) }
            let page = try await blobs.blobs(tenant: tenant, limit: parameters.limit, after: parameters.cursor)
            return BlobPage(
                blobs: page.blobs.map {
                    BlobView(id: $0.id.lowercasedString, size: $0.size, sha256: $0.sha256, contentType: $0.contentType, createdAt: JobView.timestamp($0.createdAt))
                },
                nextCursor: page.next?.token)
        }
        group.delete("/blobs/{id}") { _, context in
            let tenant = try context.requireTenant()
            let id = try TenantRoutes.id(context, "id")
            // The row first (refused while an unfinished job will send it), then the file.
            let relative = try await blobs.delete(id, tenant: tenant)
            if let path = files.absolute(relative) { files.spares.recycle(path) }
            return HTTPResponse.Status.noContent
        }
    }

    /// Writes the body to `path` (through a temporary name), returning its size and SHA-256; stops,
    /// removing what it wrote, once the body passes the 64 GiB limit or the tenant's `quota`.
    static func store(_ body: RequestBody, at path: String, quota: StorageQuota.Standing? = nil) async throws -> (Int64, String) {
        let temporary = path + ".part"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Problem(.internalServerError, code: "cannot_write_file", "cannot store the blob") }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            for try await buffer in body {
                size += Int64(buffer.readableBytes)
                guard size <= maximumSize else {
                    throw Problem(.contentTooLarge, code: "body_too_large", "a blob may be at most \(maximumSize) bytes")
                }
                if let quota, size > quota.allowance { throw Problem(StorageQuota.exceeded(quota, adding: nil, what: "the blob")) }
                try buffer.withUnsafeReadableBytes { bytes in
                    hasher.update(bufferPointer: bytes)
                    var offset = 0
                    while offset < bytes.count {
                        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                        if written < 0 {
                            if errno == EINTR { continue }
                            // A full disk (or quota of the file system) is said as such, as for a job's download.
                            let number = errno
                            let code = number == ENOSPC || number == EDQUOT ? "insufficient_storage" : "cannot_write_file"
                            throw Problem(Self.insufficientStorage, code: code, "cannot store the blob: \(String(cString: strerror(number)))")
                        }
                        offset += written
                    }
                }
            }
            guard close(descriptor) == 0, rename(temporary, path) == 0 else {
                throw Problem(Self.insufficientStorage, code: "cannot_write_file", "cannot store the blob")
            }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        return (size, hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }
}
