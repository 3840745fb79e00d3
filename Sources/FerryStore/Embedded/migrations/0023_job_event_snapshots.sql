-- 0023_job_event_snapshots: an event's job is stored as a row of the composite type job_snapshot
-- (the job's columns without the hidden ones) instead of as JSON.
--
-- Every job writes three or more events, each with the whole job. `to_jsonb(row) - ARRAY[...]`
-- turned the 27 columns into a JSON object (re-reading every jsonb column and printing every
-- timestamp as text) and then rebuilt it without the hidden keys; the readers parsed it back with
-- jsonb_populate_record. In psql, 2,000 such events took 60 to 70 ms to insert where the same rows as
-- a composite take 15 ms: about 0.15 s of PostgreSQL's CPU in each run of the P3 bench (6,000
-- events). A composite value is the row as stored, which the readers expand with `(e.job).*`.
--
-- job_snapshot is its own type, not the row type of jobs: PostgreSQL refuses to add a column with a
-- default to a table whose row type a column of another table uses. A migration that adds a column
-- to jobs adds it to job_snapshot (`ALTER TYPE job_snapshot ADD ATTRIBUTE`) and to
-- ferry_job_snapshot; `JobEventsTriggerDefinitionTests` fails until both match the table. Events
-- written before keep the new attribute null.
CREATE TYPE job_snapshot AS (
    id uuid,
    tenant_id uuid,
    session_id uuid,
    kind text,
    state text,
    priority integer,
    request jsonb,
    policies jsonb,
    attempt integer,
    max_attempts integer,
    bytes_done bigint,
    bytes_expected bigint,
    bytes_per_second bigint,
    response jsonb,
    result jsonb,
    error_code text,
    error_message text,
    stop_request text,
    lease_owner text,
    lease_expires_at timestamptz,
    run_after timestamptz,
    created_at timestamptz,
    updated_at timestamptz,
    finished_at timestamptz,
    decision jsonb,
    decision_deadline timestamptz,
    discretionary boolean
);

-- The job as an event keeps it: without resume data, idempotency key and hash, and decision answers
-- (they may hold sealed passwords). A SQL function of one SELECT: the planner inlines it, so it costs
-- what the ROW expression costs.
CREATE FUNCTION ferry_job_snapshot(j jobs) RETURNS job_snapshot
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ROW(j.id, j.tenant_id, j.session_id, j.kind, j.state, j.priority, j.request, j.policies, j.attempt,
               j.max_attempts, j.bytes_done, j.bytes_expected, j.bytes_per_second, j.response, j.result,
               j.error_code, j.error_message, j.stop_request, j.lease_owner, j.lease_expires_at, j.run_after,
               j.created_at, j.updated_at, j.finished_at, j.decision, j.decision_deadline, j.discretionary)::job_snapshot
$$;

-- The events kept so far: their JSON has exactly the snapshot's keys (or fewer, before 0018's
-- discretionary), which jsonb_populate_record reads by name. This rewrites job_events once, under
-- an exclusive lock: on a database with millions of events the first start after this migration
-- takes that much longer (FERRY_EVENT_RETENTION_DAYS bounds how many there are).
ALTER TABLE job_events ALTER COLUMN job TYPE job_snapshot USING jsonb_populate_record(NULL::job_snapshot, job);

-- The triggers of 0020 and the progress trigger of 0010, each writing the snapshot instead of JSON.
CREATE OR REPLACE FUNCTION ferry_record_inserted_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    WITH inserted AS MATERIALIZED (
        SELECT c.*, nextval('job_events_id_seq') AS event_id
        FROM (
            SELECT n.id, n.tenant_id, n.state, n.policies->>'callback_url' AS callback_url,
                   CASE n.state WHEN 'waiting_for_decision' THEN 'job.decision_required' ELSE 'job.' || n.state END AS type,
                   ferry_job_snapshot(n) AS job
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
                   ferry_job_snapshot(n) AS job
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

CREATE OR REPLACE FUNCTION ferry_announce_job_progress() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    event_id bigint;
BEGIN
    IF EXISTS (SELECT 1 FROM webhook_endpoints e
               WHERE e.tenant_id = NEW.tenant_id AND e.disabled_at IS NULL AND 'job.progress' = ANY (e.events))
       AND NOT EXISTS (SELECT 1 FROM job_events v
                       WHERE v.job_id = NEW.id AND v.type = 'job.progress' AND v.created_at > now() - interval '5 seconds') THEN
        INSERT INTO job_events (tenant_id, job_id, type, job)
        VALUES (NEW.tenant_id, NEW.id, 'job.progress', ferry_job_snapshot(NEW))
        RETURNING id INTO event_id;
        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, endpoint_id, url, next_attempt_at)
        SELECT NEW.tenant_id, event_id, NEW.id, 'job.progress', e.id, e.url, now()
        FROM webhook_endpoints e
        WHERE e.tenant_id = NEW.tenant_id AND e.disabled_at IS NULL AND 'job.progress' = ANY (e.events);
    END IF;
    RETURN NULL;
END;
$$;
