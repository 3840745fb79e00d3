import FerryModel
import FerryStore
import Foundation
import Hummingbird

/// `/v1/admin/tenants`: the admin creates tenants (whose first API key is shown once), lists them,
/// and creates, lists and revokes their keys.
struct TenantRoutes {
    let keys: KeyStore

    struct NewTenant: Decodable {
        var name: String?
        var maxRunningJobs: Int?
        var maxQueuedJobs: Int?
        var maxStorageBytes: Int64?
        var contentRetentionDays: Int?
        enum CodingKeys: String, CodingKey {
            case name
            case maxRunningJobs = "max_running_jobs"
            case maxQueuedJobs = "max_queued_jobs"
            case maxStorageBytes = "max_storage_bytes"
            case contentRetentionDays = "content_retention_days"
        }
    }

    struct TenantView: ResponseEncodable {
        var id: String
        var name: String
        var maxRunningJobs: Int?
        var maxQueuedJobs: Int?
        var maxStorageBytes: Int64?
        var contentRetentionDays: Int?
        var createdAt: String
        var disabled: Bool
        /// Only in the response that created the tenant.
        var apiKey: String?
        enum CodingKeys: String, CodingKey {
            case id, name
            case maxRunningJobs = "max_running_jobs"
            case maxQueuedJobs = "max_queued_jobs"
            case maxStorageBytes = "max_storage_bytes"
            case contentRetentionDays = "content_retention_days"
            case createdAt = "created_at"
            case disabled
            case apiKey = "api_key"
        }

        init(_ tenant: KeyStore.Tenant, apiKey: String? = nil) {
            id = tenant.id.lowercasedString
            name = tenant.name
            maxRunningJobs = tenant.maxRunningJobs
            maxQueuedJobs = tenant.maxQueuedJobs
            maxStorageBytes = tenant.maxStorageBytes
            contentRetentionDays = tenant.contentRetentionDays
            createdAt = JobView.timestamp(tenant.createdAt)
            disabled = tenant.disabled
            self.apiKey = apiKey
        }
    }

    struct TenantList: ResponseEncodable {
        var tenants: [TenantView]
    }

    struct NewKey: Decodable {
        var label: String?
    }

    struct KeyView: ResponseEncodable {
        var id: String
        var label: String?
        var createdAt: String
        var revoked: Bool
        var apiKey: String?
        enum CodingKeys: String, CodingKey {
            case id, label
            case createdAt = "created_at"
            case revoked
            case apiKey = "api_key"
        }
    }

    struct KeyList: ResponseEncodable {
        var keys: [KeyView]
    }

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.post("/tenants") { request, context in
            try context.requireAdmin()
            let (body, _) = try await JSONBody.decode(NewTenant.self, from: request, context: context)
            var errors: [Problem.FieldError] = []
            let name = body.name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if name.isEmpty || name.unicodeScalars.count > 200 { errors.append(.init(field: "name", message: "is required, 1 to 200 characters")) }
            // The columns are PostgreSQL integers (32 bits).
            let limits = 1...Int(Int32.max)
            if let value = body.maxRunningJobs, !limits.contains(value) {
                errors.append(.init(field: "max_running_jobs", message: "must be between 1 and \(Int32.max)"))
            }
            if let value = body.maxQueuedJobs, !limits.contains(value) {
                errors.append(.init(field: "max_queued_jobs", message: "must be between 1 and \(Int32.max)"))
            }
            // A bigint column: any Int64 that is not negative (0: the tenant may store nothing).
            if let value = body.maxStorageBytes, value < 0 {
                errors.append(.init(field: "max_storage_bytes", message: "must be 0 or more bytes"))
            }
            if let days = body.contentRetentionDays, !(1...36_500).contains(days) {
                errors.append(.init(field: "content_retention_days", message: "must be between 1 and 36500 days"))
            }
            guard errors.isEmpty else { throw Problem.invalid(errors) }
            let (tenant, key, _) = try await keys.createTenant(
                name: name, maxRunningJobs: body.maxRunningJobs, maxQueuedJobs: body.maxQueuedJobs, maxStorageBytes: body.maxStorageBytes,
                contentRetentionDays: body.contentRetentionDays)
            return EditedResponse(status: .created, response: TenantView(tenant, apiKey: key.text))
        }
        group.get("/tenants") { _, context in
            try context.requireAdmin()
            return TenantList(tenants: try await keys.tenants().map { TenantView($0) })
        }
        group.post("/tenants/{tenant}/keys") { request, context in
            try context.requireAdmin()
            let tenant = try Self.id(context, "tenant")
            let label = try await JSONBody.decodeIfPresent(NewKey.self, from: request, context: context)?.label
            if let label, label.unicodeScalars.count > 200 { throw Problem.invalid([.init(field: "label", message: "at most 200 characters")]) }
            guard let (key, keyID) = try await keys.createKey(tenant: tenant, label: label) else { throw Problem.notFound("tenant \(tenant.lowercasedString)") }
            return EditedResponse(
                status: .created,
                response: KeyView(id: keyID.lowercasedString, label: label, createdAt: JobView.timestamp(Date()), revoked: false, apiKey: key.text))
        }
        group.get("/tenants/{tenant}/keys") { _, context in
            try context.requireAdmin()
            let tenant = try Self.id(context, "tenant")
            guard let list = try await keys.keys(of: tenant) else { throw Problem.notFound("tenant \(tenant.lowercasedString)") }
            return KeyList(keys: list.map { KeyView(id: $0.id.lowercasedString, label: $0.label, createdAt: JobView.timestamp($0.createdAt), revoked: $0.revoked) })
        }
        group.delete("/tenants/{tenant}/keys/{key}") { _, context in
            try context.requireAdmin()
            let tenant = try Self.id(context, "tenant")
            let key = try Self.id(context, "key")
            guard try await keys.revokeKey(key, tenant: tenant) else { throw Problem.notFound("key \(key.lowercasedString) of tenant \(tenant.lowercasedString)") }
            return HTTPResponse.Status.noContent
        }
    }

    /// A UUID path parameter; anything else is a 404 (no such thing can exist).
    static func id(_ context: GatewayRequestContext, _ name: String) throws -> UUID {
        guard let text = context.parameters.get(name), let id = UUID(idText: text) else {
            throw Problem(.notFound, code: "not_found", "nothing has the id '\(context.parameters.get(name) ?? "")': ids are UUIDs")
        }
        return id
    }
}
