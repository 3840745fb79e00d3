-- 0021_events_without_tenant_row_locks: writing an event or a webhook delivery no longer checks and
-- locks its tenant's row; deleting a tenant still deletes its events and deliveries.
--
-- The foreign keys job_events.tenant_id and webhook_deliveries.tenant_id each ran a lookup of the
-- tenant with FOR KEY SHARE for every row written: four per job in the P3 bench (queued, running,
-- succeeded, and the insert's), about 10 µs each, and every claim and finish of every worker locked
-- the same tenant row, which concurrent transactions can only share through a MultiXact. They
-- guarded nothing the triggers do not: events and deliveries are written only by the triggers on
-- jobs (JobEventsTrigger), from a job row whose own foreign key holds its tenant.
--
-- What the keys' ON DELETE CASCADE did is done by a trigger on tenants: a tenant's events go with it,
-- and their deliveries with them (webhook_deliveries.event_id cascades). A statement trigger fires
-- after the row triggers of the other foreign keys, whose cascade to the tenant's jobs first waits
-- out any transaction still changing one of them (and so writing its event); the DELETE below, a
-- statement of its own, then sees that event.
ALTER TABLE job_events DROP CONSTRAINT job_events_tenant_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_tenant_id_fkey;

CREATE FUNCTION ferry_delete_tenant_events() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_events e USING deleted_tenants t WHERE e.tenant_id = t.id;
    RETURN NULL;
END;
$$;

CREATE TRIGGER tenants_delete_events AFTER DELETE ON tenants
    REFERENCING OLD TABLE AS deleted_tenants
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_delete_tenant_events();
