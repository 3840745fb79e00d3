-- 0002_tenant_turns: when each tenant last had a job claimed, so that workers serve tenants in
-- turn (issue 3, fairness). Among tenants running equally many jobs, the one served least recently
-- goes first; without it, the oldest waiting job would always win, and one tenant's long queue
-- would keep another tenant's newer job waiting until the queue drained.
ALTER TABLE tenants ADD COLUMN last_claimed_at timestamptz;
