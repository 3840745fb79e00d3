-- 0018_background_sessions: the seeds' background sessions with the gateway in the system's place
-- (issue 21; BG-01..BG-24 of the checklist).
--
-- * identifier: chosen by the client, unique among a tenant's live background sessions (BG-12, BG-15,
--   BG-23): a client that crashed creates the session again with the same identifier and rejoins it
--   (BG-08, BG-11, BG-13). An invalidated session frees its identifier.
-- * acknowledged_event_id: the last event of the session a client confirmed it has (by reconnecting to
--   the session's event stream with Last-Event-ID); a stream opened without one replays from here,
--   so events that arrived while the client was away are not lost (BG-14).
-- * jobs.discretionary: from the job's policies, for the claim's order (BG-05, BG-17): a discretionary
--   job is claimed only by a worker no other waiting job wants.
-- * session.events_finished: an event (and a delivery to the session's callback when it sends launch
--   events, BG-16) written when the last unfinished job of a background session ends, after that
--   job's own event (BG-09): the client has then been told everything.
ALTER TABLE sessions ADD COLUMN identifier text CHECK (identifier ~ '^[!-~]{1,255}$');
ALTER TABLE sessions ADD CHECK (identifier IS NULL OR kind = 'background');
ALTER TABLE sessions ADD COLUMN acknowledged_event_id bigint NOT NULL DEFAULT 0 CHECK (acknowledged_event_id >= 0);
CREATE UNIQUE INDEX sessions_live_identifier ON sessions (tenant_id, identifier)
    WHERE identifier IS NOT NULL AND invalidated_at IS NULL;

ALTER TABLE jobs ADD COLUMN discretionary boolean NOT NULL
    GENERATED ALWAYS AS (coalesce((policies->>'discretionary')::boolean, false)) STORED;
-- The claim reads each tenant's waiting jobs in this order (ClaimJobsStatement).
CREATE INDEX jobs_claimable_in_order ON jobs (tenant_id, discretionary, priority DESC, created_at, id)
    WHERE state IN ('queued', 'retrying');
DROP INDEX jobs_claimable;
-- The bytes unfinished jobs expect (BG-19) count against their tenant's storage quota (StorageQuota).
CREATE INDEX jobs_expecting_bytes ON jobs (tenant_id)
    WHERE policies ? 'expected_bytes' AND state NOT IN ('succeeded', 'failed', 'cancelled');

ALTER TABLE job_events DROP CONSTRAINT job_events_type_check;
ALTER TABLE job_events ADD CONSTRAINT job_events_type_check CHECK (type ~ '^(job|session)\.[a-z_]+$');

CREATE FUNCTION ferry_record_session_events_finished() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- Most updates of jobs (claims, heartbeats, progress) end no job of a session: one scan of the
    -- changed rows, and nothing more.
    IF NOT EXISTS (
        SELECT 1 FROM changed_jobs n
        WHERE n.session_id IS NOT NULL AND n.state IN ('succeeded', 'failed', 'cancelled'))
    THEN
        RETURN NULL;
    END IF;
    -- Two transactions ending a session's last two jobs at once would each still see the other job
    -- unfinished, and neither would write the event: they take turns per session, and the query
    -- below, a statement of its own, sees what the one before committed. (An advisory lock rather
    -- than the session's row, which an invalidation holds while it cancels the jobs.)
    PERFORM pg_advisory_xact_lock(hashtextextended('ferry session ' || s.id::text, 0))
    FROM sessions s
    WHERE s.kind = 'background' AND s.id IN (
        SELECT n.session_id FROM changed_jobs n JOIN previous_jobs o ON o.id = n.id
        WHERE n.session_id IS NOT NULL AND n.state IN ('succeeded', 'failed', 'cancelled')
          AND o.state NOT IN ('succeeded', 'failed', 'cancelled'))
    ORDER BY s.id;
    WITH ended AS (
        -- One job a session: the last of its jobs to end in this statement.
        SELECT DISTINCT ON (n.session_id) n.*
        FROM changed_jobs n JOIN previous_jobs o ON o.id = n.id
        WHERE n.session_id IS NOT NULL AND n.state IN ('succeeded', 'failed', 'cancelled')
          AND o.state NOT IN ('succeeded', 'failed', 'cancelled')
        ORDER BY n.session_id, n.id DESC
    ), finished AS (
        SELECT e.*, s.configuration->'background' AS session_background
        FROM ended e JOIN sessions s ON s.id = e.session_id AND s.kind = 'background'
        WHERE NOT EXISTS (
            SELECT 1 FROM jobs j WHERE j.session_id = e.session_id AND j.state NOT IN ('succeeded', 'failed', 'cancelled'))
    ), events AS (
        INSERT INTO job_events (tenant_id, job_id, type, job)
        SELECT f.tenant_id, f.id, 'session.events_finished',
               to_jsonb(f) - ARRAY['resume_data', 'idempotency_key', 'idempotency_hash', 'decision_answers', 'session_background']
        FROM finished f
        RETURNING id, tenant_id, job_id, type
    ), callbacks AS (
        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, url, next_attempt_at)
        SELECT e.tenant_id, e.id, e.job_id, e.type, f.session_background->>'callback_url', now()
        FROM events e JOIN finished f ON f.id = e.job_id
        WHERE f.session_background->>'callback_url' IS NOT NULL
          AND coalesce((f.session_background->>'sends_launch_events')::boolean, true)
    )
    INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, endpoint_id, url, next_attempt_at)
    SELECT e.tenant_id, e.id, e.job_id, e.type, w.id, w.url, now()
    FROM events e
    JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND w.disabled_at IS NULL AND e.type = ANY (w.events);
    RETURN NULL;
END;
$$;

-- Named to fire after jobs_record_events_on_state_change (triggers of one event fire in name order),
-- so that the ended job's own event comes first.
CREATE TRIGGER jobs_session_events_finished AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS previous_jobs NEW TABLE AS changed_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_record_session_events_finished();
