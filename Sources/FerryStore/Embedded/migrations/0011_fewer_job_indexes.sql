-- 0011_fewer_job_indexes: two fewer index entries for every version of a job row (issue 3, bench P3).
--
-- Claiming and finishing a job change its state, which some index holds, so each of those updates
-- writes a new entry into every index of jobs that covers it (no HOT update): six to seven for each
-- of a job's three versions (queued, running, finished).
--
-- jobs_for_claiming (state, priority, created_at) has served no claim since 0007 (jobs_claimable);
-- the counts by state it also served use jobs_by_tenant_state, or read the table (the metrics, the
-- admin's list filtered by state alone).
--
-- With both changes, a P3 run of 2,000 jobs (with the bench's deletes) reads 0.45 to 0.50 million
-- buffers instead of 0.62 to 1.03 million, and writes 108,000 WAL records instead of 121,000
-- (pg_stat_statements, five runs each).
DROP INDEX jobs_for_claiming;

-- A job without an Idempotency-Key (most of them) needs no entry in the index that keeps keys
-- unique: NULLs never conflict. INSERT ... ON CONFLICT names the predicate to use this index.
ALTER TABLE jobs DROP CONSTRAINT jobs_tenant_id_idempotency_key_key;
CREATE UNIQUE INDEX jobs_by_idempotency_key ON jobs (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
