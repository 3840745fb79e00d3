-- 0024_session_events_for_background_sessions_only: ferry_record_session_events_finished returns at
-- once unless the statement ended a job of a background session.
--
-- The trigger fires after every UPDATE of jobs. Its first check only asked whether an ended job had a
-- session, so every shared end of jobs in a default session (the P3 bench's, and any client that
-- uses sessions for their settings) went on to take advisory locks, sort the ended jobs and look for
-- unfinished jobs of their sessions, to find in the end that none of the sessions is a background
-- one: 0.2 to 0.3 ms of each such statement under load, 15 to 20 % of the time PostgreSQL spent in
-- its job-event triggers in the P3 bench (pg_stat_user_functions).
CREATE OR REPLACE FUNCTION ferry_record_session_events_finished() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- Most updates of jobs (claims, heartbeats, progress) end no job of a background session, and
    -- most ended jobs are in no session or a default one: one scan of the changed rows, a look at
    -- their sessions' kind, and nothing more.
    IF NOT EXISTS (
        SELECT 1 FROM changed_jobs n JOIN sessions s ON s.id = n.session_id
        WHERE n.state IN ('succeeded', 'failed', 'cancelled') AND s.kind = 'background')
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
        SELECT n.session_id FROM changed_jobs n
        WHERE n.session_id IS NOT NULL AND n.state IN ('succeeded', 'failed', 'cancelled')
          AND n.id NOT IN (SELECT o.id FROM previous_jobs o WHERE o.state IN ('succeeded', 'failed', 'cancelled')))
    ORDER BY s.id;
    WITH ended AS (
        -- One job a session: the last of its jobs to end in this statement.
        SELECT DISTINCT ON (n.session_id) n.*, ferry_job_snapshot(n) AS snapshot
        FROM changed_jobs n
        WHERE n.session_id IS NOT NULL AND n.state IN ('succeeded', 'failed', 'cancelled')
          AND n.id NOT IN (SELECT o.id FROM previous_jobs o WHERE o.state IN ('succeeded', 'failed', 'cancelled'))
        ORDER BY n.session_id, n.id DESC
    ), finished AS (
        SELECT e.*, s.configuration->'background' AS session_background
        FROM ended e JOIN sessions s ON s.id = e.session_id AND s.kind = 'background'
        WHERE NOT EXISTS (
            SELECT 1 FROM jobs j WHERE j.session_id = e.session_id AND j.state NOT IN ('succeeded', 'failed', 'cancelled'))
    ), events AS (
        INSERT INTO job_events (tenant_id, job_id, type, job)
        SELECT f.tenant_id, f.id, 'session.events_finished', f.snapshot
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
