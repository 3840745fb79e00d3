import FerryModel
import Foundation
import PostgresNIO

extension JobRecord {
    /// The select list every read of a whole job uses, in the order `init(row:)` reads it.
    package static let columns = """
        id, tenant_id, session_id, kind, state, priority, request::text, policies::text, attempt, max_attempts, \
        bytes_done, bytes_expected, bytes_per_second, response::text, result::text, error_code, error_message, \
        resume_data::text, stop_request, created_at, updated_at, finished_at, \
        (extract(epoch FROM created_at) * 1000000)::bigint, decision::text, decision_deadline
        """

    /// How many values `columns` selects: a query's own columns after them start at this index.
    package static let columnCount = 25

    /// A job row; `reading` says what becomes of the values sealed in it (`SecretReading`): only the
    /// worker that runs the job opens them. A statement reading many rows passes its `repeated`, so
    /// that the policies its jobs share are decoded once.
    package init(row: PostgresRow, reading: SecretReading = .redact, repeated: RepeatedJSONTexts? = nil) throws {
        let r = row.makeRandomAccess()
        let id = try r[0].decode(UUID.self)
        let policies = try r[7].decode(String.self)
        try self.init(
            id: id,
            tenantID: try r[1].decode(UUID.self),
            sessionID: try r[2].decode(UUID?.self),
            kind: JobSpecification.Kind(rawValue: try r[3].decode(String.self)) ?? .download,
            state: JobState(rawValue: try r[4].decode(String.self)) ?? .failed,
            priority: try r[5].decode(Int.self),
            request: try SealedJobRequest.decode(try r[6].decode(String.self), job: id, reading: reading),
            policies: try repeated?.value(JobSpecification.Policies.self, json: policies)
                ?? JobSpecification.decode(JobSpecification.Policies.self, json: policies),
            attempt: try r[8].decode(Int.self),
            maxAttempts: try r[9].decode(Int.self),
            bytesDone: try r[10].decode(Int64.self),
            bytesExpected: try r[11].decode(Int64?.self),
            bytesPerSecond: try r[12].decode(Int64?.self),
            response: try r[13].decode(String?.self).map { try JobSpecification.decode(StoredResponse.self, json: $0) },
            result: try r[14].decode(String?.self).map { try JobSpecification.decode(StoredResult.self, json: $0) },
            errorCode: try r[15].decode(String?.self),
            errorMessage: try r[16].decode(String?.self),
            resumeData: try SealedResumeData.decode(try r[17].decode(String?.self), job: id, reading: reading),
            stopRequest: try r[18].decode(String?.self),
            createdAt: try r[19].decode(Date.self),
            updatedAt: try r[20].decode(Date.self),
            finishedAt: try r[21].decode(Date?.self),
            createdMicros: try r[22].decode(Int64.self),
            decision: try r[23].decode(String?.self).map { try JobSpecification.decode(PendingDecision.self, json: $0) },
            decisionDeadline: try r[24].decode(Date?.self))
    }
}
