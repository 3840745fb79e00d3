import FerryModel
import Foundation
import PostgresNIO

/// An owner's server-trust and client-certificate credentials, the tenant's permanent ones and its
/// session's: read before every job (`VaultOutfitter.prepare`), so prepared once per connection
/// rather than parsed and planned each time (bench P3).
struct ConnectionCredentialsStatement: PostgresPreparedStatement {
    typealias Row = CredentialRecord

    static let sql = """
        SELECT \(CredentialRecord.columns) FROM credentials
        WHERE tenant_id = $1 AND method IN ('server_trust', 'client_certificate')
          AND (persistence = 'permanent' OR session_id = $2)
        ORDER BY id
        """
    static let bindingDataTypes: [PostgresDataType] = [.uuid, .uuid]

    var owner: EngineSessionOwner

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(owner.tenantID)
        bindings.append(owner.sessionID)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try CredentialRecord(row: row)
    }
}
