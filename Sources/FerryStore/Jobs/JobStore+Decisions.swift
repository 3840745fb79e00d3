import FerryModel
import Foundation
import Logging
import PostgresNIO

extension JobStore {
    /// What an answer does to the waiting job.
    package enum DecisionOutcome {
        /// Stored for the replayed attempt, and the job queued again.
        case answer(decisionID: String, StoredDecisionAnswer)
        /// The answer ends the job: cancelled (a challenge's `cancel`) or failed (a rejected certificate).
        case end(JobEvent, code: String, message: String)
    }

    /// Applies the answer to the decision `decisionID` of the tenant's job `id`, in one transaction
    /// that re-checks the job still waits for exactly that decision (another client, or the reaper,
    /// may have got there first: 409). Another tenant's job is a 404.
    package func answerDecision(_ id: UUID, tenant: UUID, decisionID: String, _ outcome: DecisionOutcome) async throws -> JobRecord {
        let logger = self.logger
        let (job, partialFile) = try await client.transaction(logger: logger) { connection -> (JobRecord, String?) in
            let rows = try await connection.query(
                """
                SELECT state, decision->>'id', resume_data->>'partial_file' FROM jobs
                WHERE id = \(id) AND tenant_id = \(tenant) FOR UPDATE
                """, logger: logger)
            var found: (String, String?, String?)?
            for try await row in rows.decode((String, String?, String?).self) { found = row }
            guard let (stateText, waitingFor, partialFile) = found, let state = JobState(rawValue: stateText) else {
                throw GatewayError.notFound("job \(id.lowercasedString)")
            }
            guard state == .waitingForDecision, waitingFor == decisionID else { throw Self.notWaiting(id, state: state) }
            switch outcome {
            // The events of the new states are written by the database: JobEventsTrigger.
            case .answer(let key, let answer):
                let transition = try JobStateMachine.apply(.decide, to: state).get()
                try await connection.query(
                    """
                    UPDATE jobs SET state = \(transition.to.rawValue), run_after = now(),
                        -- A data job whose response was answered become_download goes on as a download (LC-09).
                        kind = CASE WHEN \(answer.disposition == .becomeDownload) THEN 'download' ELSE kind END,
                        decision_answers = decision_answers || jsonb_build_object(\(key)::text, \(JobSpecification.json(answer))::jsonb)
                    WHERE id = \(id)
                    """, logger: logger)
                if transition.wakesWorkers { try await connection.query("SELECT pg_notify(\(JobQueue.channel), '')", logger: logger) }
            case .end(let event, let code, let message):
                let transition = try JobStateMachine.apply(event, to: state).get()
                let finished = transition.finishes
                try await connection.query(
                    """
                    UPDATE jobs SET state = \(transition.to.rawValue), finished_at = CASE WHEN \(finished) THEN now() ELSE NULL END,
                        error_code = \(code), error_message = \(message), resume_data = CASE WHEN \(finished) THEN NULL ELSE resume_data END
                    WHERE id = \(id)
                    """, logger: logger)
            }
            let reread = try await connection.query("SELECT \(unescaped: JobRecord.columns) FROM jobs WHERE id = \(id)", logger: logger)
            for try await row in reread {
                let job = try JobRecord(row: row)
                return (job, job.state.isTerminal ? partialFile : nil)
            }
            throw GatewayError.notFound("job \(id.lowercasedString)")
        }
        // Only once the end is committed: the partial download will never be continued.
        if let partialFile { unlink(partialFile) }
        return job
    }

    package static func notWaiting(_ id: UUID, state: JobState) -> GatewayError {
        state == .waitingForDecision
            ? GatewayError(.conflict, code: "decision_changed", "job \(id) now waits for another decision; read it and answer that one")
            : GatewayError(.conflict, code: "job_not_waiting_for_decision", "job \(id) is \(state.rawValue), not waiting for a decision")
    }
}
