-- 0006_job_decisions: decisions a client answers over the API (issue 6; ../shared/design.md, "The
-- gateway", state waiting_for_decision).
--
-- A job that asks (policies.decisions) and meets an authentication challenge, a redirect or a server
-- certificate it has no stored answer for ends its attempt in waiting_for_decision, holding no
-- worker, lease or connection: `decision` says what is asked (the view clients see; never a secret),
-- `decision_deadline` when an unanswered decision fails the job (decision_timed_out). The answer goes
-- into `decision_answers` (keyed by the decision's id) and the job is queued again; the next attempt
-- replays the transfer to the same point and finds it there. An inline password in an answer is
-- sealed with the vault key (AES-GCM, bound to the tenant and the job), never stored in plain text.

ALTER TABLE jobs
    ADD COLUMN decision jsonb,
    ADD COLUMN decision_deadline timestamptz,
    ADD COLUMN decision_answers jsonb NOT NULL DEFAULT '{}';

-- Nothing wrote this state before: a row in it (written by hand) would have no decision to show.
UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL WHERE state = 'waiting_for_decision';

-- A pending decision exists exactly while the job waits for it.
ALTER TABLE jobs ADD CONSTRAINT jobs_decision_while_waiting
    CHECK ((state = 'waiting_for_decision') = (decision IS NOT NULL AND decision_deadline IS NOT NULL));

-- An attempt that stopped at a decision says so.
ALTER TABLE job_attempts DROP CONSTRAINT job_attempts_outcome_check;
ALTER TABLE job_attempts ADD CONSTRAINT job_attempts_outcome_check
    CHECK (outcome IN ('succeeded', 'failed', 'retrying', 'paused', 'cancelled', 'interrupted', 'waiting_for_decision'));

-- The reaper's search for overdue decisions.
CREATE INDEX jobs_by_decision_deadline ON jobs (decision_deadline) WHERE decision_deadline IS NOT NULL;

-- Whatever statement moves a job out of waiting_for_decision (an answer, a cancel, a pause, the
-- reaper, any written later) drops the pending decision with it; a finished job keeps no answers,
-- since they may hold sealed passwords that nothing will need again.
CREATE FUNCTION ferry_settle_job_decision() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state <> 'waiting_for_decision' THEN
        NEW.decision := NULL;
        NEW.decision_deadline := NULL;
    END IF;
    IF NEW.state IN ('succeeded', 'failed', 'cancelled') THEN
        NEW.decision_answers := '{}';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER jobs_settle_decision BEFORE UPDATE ON jobs
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION ferry_settle_job_decision();

-- As in 0003, with two changes: the event of waiting_for_decision is `job.decision_required` (its
-- job carries the pending decision), and no event ever copies the stored answers.
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
    PERFORM pg_notify('ferry_job_events',
        json_build_object('event', event_id, 'tenant', NEW.tenant_id, 'job', NEW.id, 'type', event_type)::text);
    RETURN NULL;
END;
$$;

-- As in 0003, without the stored answers in the job events it writes.
CREATE OR REPLACE FUNCTION ferry_announce_job_progress() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    event_id bigint;
BEGIN
    PERFORM pg_notify('ferry_job_events', json_build_object(
        'progress', true, 'tenant', NEW.tenant_id, 'job', NEW.id, 'bytes_done', NEW.bytes_done,
        'bytes_expected', NEW.bytes_expected, 'rate', NEW.bytes_per_second)::text);
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
