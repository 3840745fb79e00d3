import FerryModel
import FerryVault
import Foundation

/// `jobs.request` with its credential-bearing header values sealed (`SealedHeaderList`), for the job
/// (associated data: `jobs.request` and the job's id). The job events' copies of the row
/// (`(job_events.job).request`) hold the same document, so they too carry only sealed values.
package enum SealedJobRequest {
    package static let column = "jobs.request"

    package static func associatedData(job: UUID) -> Data {
        VaultKeyring.associatedData(column: column, row: job)
    }

    /// The document to store for a new job: sealed before it reaches SQL, so neither the statement,
    /// the table nor the WAL holds a credential.
    package static func json(_ request: JobSpecification.Request, job: UUID, keyring: VaultKeyring) throws -> String {
        let plain = JobSpecification.json(request)
        guard request.headers.contains(where: { CredentialHeaders.carriesCredentials($0.name) }) else { return plain }
        return try resealed(plain, job: job, keyring: keyring) ?? plain
    }

    /// The stored document with every credential-bearing value sealed under the current key; nil
    /// when it already was.
    package static func resealed(_ stored: String, job: UUID, keyring: VaultKeyring) throws -> String? {
        var document = try SealedJSONDocument.object(stored)
        guard var headers = document["headers"] as? [Any],
              try SealedHeaderList.seal(&headers, keyring: keyring, associatedData: associatedData(job: job))
        else { return nil }
        document["headers"] = headers
        return try SealedJSONDocument.text(document)
    }

    private struct StoredHeaders: Decodable {
        var headers: [SealedHeaderList.Stored]?
    }

    /// The request as `reading` asks: sealed values opened, or left as `<redacted>`.
    package static func decode(_ stored: String, job: UUID, reading: SecretReading) throws -> JobSpecification.Request {
        var request = try JobSpecification.decode(JobSpecification.Request.self, json: stored)
        guard case .open(let keyring) = reading, SealedJSONDocument.mayHoldSealedValues(stored) else { return request }
        let headers = try JobSpecification.decode(StoredHeaders.self, json: stored).headers ?? []
        for (index, value) in try SealedHeaderList.openedValues(headers, keyring: keyring, associatedData: associatedData(job: job))
        where request.headers.indices.contains(index) {
            request.headers[index].value = value
        }
        return request
    }
}
