-- 0023_tenant_stored_job_bytes: the bytes a tenant's succeeded jobs store, kept by the triggers on
-- jobs, so that the storage quota (StorageQuota) reads one row instead of every job the tenant keeps.
--
-- With a quota, every download's start and every blob's upload summed `result->>'size'` over all of
-- the tenant's succeeded jobs: a heap fetch and a jsonb lookup per job ever kept, linear in the
-- tenant's history. The triggers change the row in the transaction that changes the jobs, so the
-- sum cannot drift from the rows it counts.
--
-- One row per tenant: only what changes the stored bytes writes it (an end that succeeds, content
-- expiring, a deletion), and a gathered end (JobEndWriter) of many jobs writes it once.
CREATE TABLE tenant_usage (
    tenant_id uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    stored_job_bytes bigint NOT NULL
) WITH (fillfactor = 50);

-- The bytes one job row stores: a succeeded job's content (`result.size`) until retention expires
-- it. A size that is not a number counts nothing rather than failing the statement that ends the
-- job. A SQL function of one expression, so it is inlined where it is called.
CREATE FUNCTION ferry_stored_job_bytes(state text, result jsonb) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN state = 'succeeded' AND result->'expired' IS NULL AND jsonb_typeof(result->'size') = 'number'
                THEN (result->'size')::numeric::bigint ELSE 0 END
$$;

-- Each function adds per tenant, in the order of the tenants, so two statements lock their common
-- rows in the same order. The join with tenants leaves out a tenant being deleted: its jobs go by
-- the cascade of its deletion, and its row with it.
CREATE FUNCTION ferry_tally_inserted_job_bytes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tenant_usage AS u (tenant_id, stored_job_bytes)
    SELECT t.id, sum(ferry_stored_job_bytes(n.state, n.result))
    FROM inserted_jobs n JOIN tenants t ON t.id = n.tenant_id
    GROUP BY t.id HAVING sum(ferry_stored_job_bytes(n.state, n.result)) <> 0 ORDER BY t.id
    ON CONFLICT (tenant_id) DO UPDATE SET stored_job_bytes = u.stored_job_bytes + excluded.stored_job_bytes;
    RETURN NULL;
END;
$$;

-- Only a succeeded row stores bytes: a statement with none on either side (a claim, a heartbeat,
-- progress, a failed end) returns after two scans of its rows.
CREATE FUNCTION ferry_tally_changed_job_bytes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM changed_jobs n WHERE n.state = 'succeeded')
       AND NOT EXISTS (SELECT 1 FROM previous_jobs o WHERE o.state = 'succeeded')
    THEN
        RETURN NULL;
    END IF;
    INSERT INTO tenant_usage AS u (tenant_id, stored_job_bytes)
    SELECT t.id, sum(d.bytes)
    FROM (
        SELECT n.tenant_id, ferry_stored_job_bytes(n.state, n.result) AS bytes FROM changed_jobs n
        UNION ALL
        SELECT o.tenant_id, -ferry_stored_job_bytes(o.state, o.result) FROM previous_jobs o
    ) d JOIN tenants t ON t.id = d.tenant_id
    GROUP BY t.id HAVING sum(d.bytes) <> 0 ORDER BY t.id
    ON CONFLICT (tenant_id) DO UPDATE SET stored_job_bytes = u.stored_job_bytes + excluded.stored_job_bytes;
    RETURN NULL;
END;
$$;

CREATE FUNCTION ferry_tally_deleted_job_bytes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tenant_usage AS u (tenant_id, stored_job_bytes)
    SELECT t.id, -sum(ferry_stored_job_bytes(o.state, o.result))
    FROM deleted_jobs o JOIN tenants t ON t.id = o.tenant_id
    GROUP BY t.id HAVING sum(ferry_stored_job_bytes(o.state, o.result)) <> 0 ORDER BY t.id
    ON CONFLICT (tenant_id) DO UPDATE SET stored_job_bytes = u.stored_job_bytes + excluded.stored_job_bytes;
    RETURN NULL;
END;
$$;

CREATE FUNCTION ferry_forget_job_bytes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM tenant_usage;
    RETURN NULL;
END;
$$;

CREATE TRIGGER jobs_tally_inserted_bytes AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS inserted_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_tally_inserted_job_bytes();
CREATE TRIGGER jobs_tally_changed_bytes AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS previous_jobs NEW TABLE AS changed_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_tally_changed_job_bytes();
CREATE TRIGGER jobs_tally_deleted_bytes AFTER DELETE ON jobs
    REFERENCING OLD TABLE AS deleted_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_tally_deleted_job_bytes();
CREATE TRIGGER jobs_tally_truncated_bytes AFTER TRUNCATE ON jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_forget_job_bytes();

-- What the tenants store now. CREATE TRIGGER has locked jobs against writes until this transaction
-- commits, so no change falls between this sum and the triggers.
INSERT INTO tenant_usage (tenant_id, stored_job_bytes)
SELECT tenant_id, sum(ferry_stored_job_bytes(state, result)) FROM jobs
GROUP BY tenant_id HAVING sum(ferry_stored_job_bytes(state, result)) <> 0;
