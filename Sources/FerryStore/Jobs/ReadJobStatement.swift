import FerryModel
import Foundation
import PostgresNIO

/// One job by id, the tenant's own (or, for the admin, any tenant's): `GET /v1/jobs/{id}`, the
/// statement clients poll (`JobStore.job`).
///
/// Prepared once per connection (see `ClaimJobsStatement`): parsing and planning it on every poll
/// cost PostgreSQL more than running it (bench P4).
struct ReadJobStatement: PostgresPreparedStatement {
    typealias Row = JobRecord

    static let sql = "SELECT \(JobRecord.columns) FROM jobs WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2)"
    static let bindingDataTypes: [PostgresDataType] = [.uuid, .uuid]

    var id: UUID
    /// Nil: any tenant's (the admin).
    var tenant: UUID?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(id)
        bindings.append(tenant)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try JobRecord(row: row)
    }
}
