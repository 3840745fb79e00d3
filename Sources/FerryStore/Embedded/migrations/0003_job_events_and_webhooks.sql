-- 0003_job_events_and_webhooks: job events as an outbox, and the webhooks that deliver them
-- (issue 4; ../shared/design.md, "The gateway").
--
-- Every change of a job's state writes one row of job_events, and the webhook deliveries it causes,
-- from a trigger on jobs: in the same statement as the change, whichever statement that is (submit,
-- claim, finish, the lease reaper, pause/resume/cancel, and any written later), with no extra round
-- trip. A crash can therefore neither lose an event (it commits with the change) nor invent one (it
-- rolls back with it). The trigger then NOTIFYs ferry_job_events so every ferryd wakes: its
-- Server-Sent Events streams read the new rows, its webhook dispatcher the new deliveries.

-- The placeholder of 0001, never written to: one row per event and target did not fit endpoints
-- subscribing by event type, nor a delivery log with attempts.
DROP TABLE webhook_outbox;

CREATE TABLE job_events (
    -- Also the Server-Sent Events id (Last-Event-ID) and the webhook-id of its deliveries.
    id bigserial PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    -- No foreign key: deleting a finished job must not take its undelivered events with it.
    job_id uuid NOT NULL,
    type text NOT NULL CHECK (type ~ '^job\.[a-z_]+$'),
    -- The jobs row after the change (without resume data and idempotency columns): the job view of
    -- the event is built from it, so a late delivery or a replay says what was true then.
    job jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_events_by_job ON job_events (job_id, id);
CREATE INDEX job_events_by_tenant ON job_events (tenant_id, id);

-- The tenant's signing secret for job callbacks (`whsec_` + base64), made on first use. After a
-- rotation the previous one stays valid until previous_valid_until, and deliveries carry both
-- signatures. Kept as text: signing needs the secret itself, not a hash of it.
CREATE TABLE webhook_secrets (
    tenant_id uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    secret text NOT NULL CHECK (secret LIKE 'whsec\_%'),
    previous_secret text CHECK (previous_secret LIKE 'whsec\_%'),
    previous_valid_until timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    rotated_at timestamptz,
    CHECK ((previous_secret IS NULL) = (previous_valid_until IS NULL))
);

-- A tenant-level receiver subscribed to event types, with its own secret.
CREATE TABLE webhook_endpoints (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    url text NOT NULL,
    events text[] NOT NULL CHECK (cardinality(events) > 0),
    secret text NOT NULL CHECK (secret LIKE 'whsec\_%'),
    created_at timestamptz NOT NULL DEFAULT now(),
    -- Set when the receiver answered 410 Gone: no more deliveries are made for it.
    disabled_at timestamptz,
    disabled_reason text
);
CREATE INDEX webhook_endpoints_by_tenant ON webhook_endpoints (tenant_id) WHERE disabled_at IS NULL;

-- One event to one receiver: the job's callback (endpoint_id NULL, signed with the tenant's secret)
-- or an endpoint. Dispatchers in every ferryd claim due rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    event_id bigint NOT NULL REFERENCES job_events (id) ON DELETE CASCADE,
    job_id uuid NOT NULL,
    event_type text NOT NULL,
    endpoint_id uuid REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    url text NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    -- Failed attempts since the delivery was made or redelivered: the step of the retry schedule.
    failures integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
    -- When the next attempt is due (pending only). A dispatcher claiming the row moves it past the
    -- attempt's timeout, so a dispatcher that dies mid-attempt leaves it to another one.
    next_attempt_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz,
    CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_job ON webhook_deliveries (job_id, created_at);

-- Every attempt of a delivery: when, how long, what the receiver answered or what went wrong.
CREATE TABLE webhook_attempts (
    delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt integer NOT NULL CHECK (attempt >= 1),
    started_at timestamptz NOT NULL,
    latency_ms integer NOT NULL CHECK (latency_ms >= 0),
    response_status integer CHECK (response_status BETWEEN 100 AND 999),
    error text,
    PRIMARY KEY (delivery_id, attempt)
);

-- Writes the event of a job's new state, its deliveries (the callback for final states, endpoints
-- subscribed to the type), and wakes every ferryd.
CREATE FUNCTION ferry_record_job_event() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    event_type text := 'job.' || NEW.state;
    event_id bigint;
BEGIN
    INSERT INTO job_events (tenant_id, job_id, type, job)
    VALUES (NEW.tenant_id, NEW.id, event_type,
            to_jsonb(NEW) - 'resume_data' - 'idempotency_key' - 'idempotency_hash')
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
CREATE TRIGGER jobs_record_event_on_insert AFTER INSERT ON jobs
    FOR EACH ROW EXECUTE FUNCTION ferry_record_job_event();
CREATE TRIGGER jobs_record_event_on_state_change AFTER UPDATE ON jobs
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION ferry_record_job_event();

-- Progress is not stored as events: the heartbeat that persists it also NOTIFYs it, for live
-- streams. Only endpoints subscribed to job.progress get stored events (and deliveries), at most one
-- per job every 5 seconds.
CREATE FUNCTION ferry_announce_job_progress() RETURNS trigger
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
        VALUES (NEW.tenant_id, NEW.id, 'job.progress', to_jsonb(NEW) - 'resume_data' - 'idempotency_key' - 'idempotency_hash')
        RETURNING id INTO event_id;
        INSERT INTO webhook_deliveries (tenant_id, event_id, job_id, event_type, endpoint_id, url, next_attempt_at)
        SELECT NEW.tenant_id, event_id, NEW.id, 'job.progress', e.id, e.url, now()
        FROM webhook_endpoints e
        WHERE e.tenant_id = NEW.tenant_id AND e.disabled_at IS NULL AND 'job.progress' = ANY (e.events);
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER jobs_announce_progress AFTER UPDATE OF bytes_done ON jobs
    FOR EACH ROW WHEN (NEW.state = 'running' AND OLD.state = 'running' AND OLD.bytes_done IS DISTINCT FROM NEW.bytes_done)
    EXECUTE FUNCTION ferry_announce_job_progress();
