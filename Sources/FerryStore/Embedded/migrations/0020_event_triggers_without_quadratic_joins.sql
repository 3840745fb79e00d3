-- 0020_event_triggers_without_quadratic_joins: the statement triggers on jobs no longer join their
-- transition tables to each other or to their own output, so a large statement costs in proportion
-- to its rows whatever the connection ran first.
--
-- PL/pgSQL plans a statement of a trigger once per connection and keeps the plan; a transition
-- table is estimated at the rows it held in that first call. A connection whose first claim took one
-- job thus kept nested loops for good: every later heartbeat of all running jobs compared each new
-- row with every old one, and a batch of jobs rescanned the inserted rows once per event to find
-- callback URLs. Measured in psql, a connection's first statement touching one job: a heartbeat of
-- 2,000 running jobs spent 508 ms in ferry_record_state_changes (1.8 ms planned for 2,000 rows), an
-- insert of 1,000 jobs 210 to 330 ms in ferry_record_inserted_jobs (38 to 46 ms).
--
-- Now:
-- * An event's id is drawn from job_events' sequence while its job's row is read, in the jobs'
--   order as before, so its deliveries are written from the same row instead of joining the events
--   written back to the jobs by id.
-- * Whether a row's state changed is a hashed NOT IN of the old table's (id, state) pairs: the
--   planner hashes a subquery it expects to fit in memory, which an estimate made for a few rows
--   always does.
CREATE OR REPLACE FUNCTION ferry_record_inserted_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    WITH inserted AS MATERIALIZED (
        SELECT c.*, nextval('job_events_id_seq') AS event_id
        FROM (
            SELECT n.id, n.tenant_id, n.state, n.policies->>'callback_url' AS callback_url,
                   CASE n.state WHEN 'waiting_for_decision' THEN 'job.decision_required' ELSE 'job.' || n.state END AS type,
                   to_jsonb(n) - ARRAY['resume_data', 'idempotency_key', 'idempotency_hash', 'decision_answers'] AS job
            FROM inserted_jobs n
            ORDER BY n.created_at, n.id
            OFFSET 0
        ) c
    ), events AS (
        INSERT INTO job_events (id, tenant_id, job_id, type, job)
        SELECT c.event_id, c.tenant_id, c.id, c.type, c.job FROM inserted c ORDER BY c.event_id
    ), callbacks AS (
        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, url, next_attempt_at)
        SELECT c.tenant_id, c.event_id, c.id, c.type, c.callback_url, now()
        FROM inserted c
        WHERE c.state IN ('succeeded', 'failed', 'cancelled') AND c.callback_url IS NOT NULL
    )
    INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, endpoint_id, url, next_attempt_at)
    SELECT c.tenant_id, c.event_id, c.id, c.type, w.id, w.url, now()
    FROM inserted c
    JOIN webhook_endpoints w ON w.tenant_id = c.tenant_id AND w.disabled_at IS NULL AND c.type = ANY (w.events);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION ferry_record_state_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    WITH changed AS MATERIALIZED (
        SELECT c.*, nextval('job_events_id_seq') AS event_id
        FROM (
            SELECT n.id, n.tenant_id, n.state, n.policies->>'callback_url' AS callback_url,
                   CASE n.state WHEN 'waiting_for_decision' THEN 'job.decision_required' ELSE 'job.' || n.state END AS type,
                   to_jsonb(n) - ARRAY['resume_data', 'idempotency_key', 'idempotency_hash', 'decision_answers'] AS job
            FROM changed_jobs n
            WHERE (n.id, n.state) NOT IN (SELECT o.id, o.state FROM previous_jobs o)
            ORDER BY n.id
            OFFSET 0
        ) c
    ), events AS (
        INSERT INTO job_events (id, tenant_id, job_id, type, job)
        SELECT c.event_id, c.tenant_id, c.id, c.type, c.job FROM changed c ORDER BY c.event_id
    ), callbacks AS (
        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, url, next_attempt_at)
        SELECT c.tenant_id, c.event_id, c.id, c.type, c.callback_url, now()
        FROM changed c
        WHERE c.state IN ('succeeded', 'failed', 'cancelled') AND c.callback_url IS NOT NULL
    )
    INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, endpoint_id, url, next_attempt_at)
    SELECT c.tenant_id, c.event_id, c.id, c.type, w.id, w.url, now()
    FROM changed c
    JOIN webhook_endpoints w ON w.tenant_id = c.tenant_id AND w.disabled_at IS NULL AND c.type = ANY (w.events);
    RETURN NULL;
END;
$$;

-- As in 0018; only the test of whether a job had ended before changed (a hashed NOT IN).
CREATE OR REPLACE FUNCTION ferry_record_session_events_finished() RETURNS trigger
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
        SELECT n.session_id FROM changed_jobs n
        WHERE n.session_id IS NOT NULL AND n.state IN ('succeeded', 'failed', 'cancelled')
          AND n.id NOT IN (SELECT o.id FROM previous_jobs o WHERE o.state IN ('succeeded', 'failed', 'cancelled')))
    ORDER BY s.id;
    WITH ended AS (
        -- One job a session: the last of its jobs to end in this statement.
        SELECT DISTINCT ON (n.session_id) n.*
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
