-- 0016_set_based_state_change_events: the events of state changes are written by one statement per
-- UPDATE, as 0010 does for inserts (issue 19, bench P3).
--
-- A claim or a shared finish changes the state of many jobs in one statement; the row trigger ran its
-- plpgsql body, an INSERT and an endpoint lookup once for each of them. 0010 kept the row trigger
-- because a statement trigger would also run for every heartbeat; heartbeats of all running jobs now
-- share one statement a tick (HeartbeatWriter), so that costs one empty join a second. In psql, 2,000
-- jobs claimed then finished in statements of 12 took 170 to 380 ms with the statement trigger
-- against 290 to 410 ms with the row trigger (a loaded machine; 1,000-row statements: 112 against
-- 236 ms).
--
-- A changed row is one whose state differs between the statement's old and new transition tables;
-- its events are written in the order of the jobs' ids.
CREATE FUNCTION ferry_record_state_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    WITH changed AS (
        SELECT n.* FROM changed_jobs n JOIN previous_jobs o ON o.id = n.id
        WHERE o.state IS DISTINCT FROM n.state
    ), events AS (
        INSERT INTO job_events (tenant_id, job_id, type, job)
        SELECT j.tenant_id, j.id,
               CASE j.state WHEN 'waiting_for_decision' THEN 'job.decision_required' ELSE 'job.' || j.state END,
               to_jsonb(j) - ARRAY['resume_data', 'idempotency_key', 'idempotency_hash', 'decision_answers']
        FROM changed j
        ORDER BY j.id
        RETURNING id, tenant_id, job_id, type
    ), callbacks AS (
        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, url, next_attempt_at)
        SELECT e.tenant_id, e.id, e.job_id, e.type, j.policies->>'callback_url', now()
        FROM events e JOIN changed j ON j.id = e.job_id
        WHERE j.state IN ('succeeded', 'failed', 'cancelled') AND j.policies->>'callback_url' IS NOT NULL
    )
    INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, endpoint_id, url, next_attempt_at)
    SELECT e.tenant_id, e.id, e.job_id, e.type, w.id, w.url, now()
    FROM events e
    JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND w.disabled_at IS NULL AND e.type = ANY (w.events);
    RETURN NULL;
END;
$$;

DROP TRIGGER jobs_record_event_on_state_change ON jobs;
DROP FUNCTION ferry_record_job_event();
CREATE TRIGGER jobs_record_events_on_state_change AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS previous_jobs NEW TABLE AS changed_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_record_state_changes();
