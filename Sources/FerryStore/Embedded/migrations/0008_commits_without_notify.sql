-- 0008_commits_without_notify: job writes no longer NOTIFY inside their own transactions, and no
-- longer update the tenant's row (issue 3, bench P3).
--
-- A transaction that NOTIFYs holds PostgreSQL's notification lock from just before its commit until
-- the commit is flushed to disk, so such transactions commit one after another, each waiting for
-- the flush of the one before. Every submission, claim and finish did (through the triggers below
-- and the submission statement): measured with pgbench on the bench machine, 640 commits a second
-- instead of 4,700. The events are still written here, in the transaction of the change; ferryd
-- reads new ones from job_events (JobEventFeed polls by id), and the heartbeat announces live
-- progress in a statement of its own after its update.
CREATE OR REPLACE FUNCTION ferry_record_job_event() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    event_type text := CASE NEW.state WHEN 'waiting_for_decision' THEN 'job.decision_required' ELSE 'job.' || NEW.state END;
    event_id bigint;
BEGIN
    INSERT INTO job_events (tenant_id, job_id, type, job)
    VALUES (NEW.tenant_id, NEW.id, event_type,
            to_jsonb(NEW) - 'resume_data' - 'idempotency_key' - 'idempotency_hash' - 'decision_answers')
    RETURNING id INTO event_id;
    IF NEW.state IN ('succeeded', 'failed', 'cancelled') AND NEW.policies->>'callback_url' IS NOT NULL THEN
        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, url, next_attempt_at)
        VALUES (NEW.tenant_id, event_id, NEW.id, event_type, NEW.policies->>'callback_url', now());
    END IF;
    INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, endpoint_id, url, next_attempt_at)
    SELECT NEW.tenant_id, event_id, NEW.id, event_type, e.id, e.url, now()
    FROM webhook_endpoints e
    WHERE e.tenant_id = NEW.tenant_id AND e.disabled_at IS NULL AND event_type = ANY (e.events);
    RETURN NULL;
END;
$$;

-- Only the stored job.progress events for subscribed endpoints are left here.
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
        VALUES (NEW.tenant_id, NEW.id, 'job.progress',
                to_jsonb(NEW) - 'resume_data' - 'idempotency_key' - 'idempotency_hash' - 'decision_answers')
        RETURNING id INTO event_id;
        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, endpoint_id, url, next_attempt_at)
        SELECT NEW.tenant_id, event_id, NEW.id, 'job.progress', e.id, e.url, now()
        FROM webhook_endpoints e
        WHERE e.tenant_id = NEW.tenant_id AND e.disabled_at IS NULL AND 'job.progress' = ANY (e.events);
    END IF;
    RETURN NULL;
END;
$$;

-- When each tenant last had a job claimed (0002) moves out of `tenants` into a table of its own.
-- Every job and every event row locks its tenant's row for its foreign key (FOR KEY SHARE); while a
-- claim's transaction held that row updated, each of those locks had to take a multixact with it:
-- 0.75 ms a check in the bench, against 0.015 ms for the session row that the same jobs reference
-- but nothing updates. The tenant row is now only read on the job paths.
CREATE TABLE tenant_turns (
    tenant_id uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    last_claimed_at timestamptz NOT NULL
);
INSERT INTO tenant_turns (tenant_id, last_claimed_at)
SELECT id, last_claimed_at FROM tenants WHERE last_claimed_at IS NOT NULL;
ALTER TABLE tenants DROP COLUMN last_claimed_at;
