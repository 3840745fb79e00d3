-- 0019_webhook_deliveries_by_tenant: `GET /v1/webhooks/deliveries` reads a tenant's deliveries in
-- pages, newest first, by (created_at, id) after a cursor.
--
-- Without this index each read scanned and sorted every tenant's deliveries (a row per event per
-- endpoint, kept for ever) to return 200 of them. The admin's read of all tenants walks the same
-- order through `webhook_deliveries_newest`.
CREATE INDEX webhook_deliveries_by_tenant ON webhook_deliveries (tenant_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_newest ON webhook_deliveries (created_at DESC, id DESC);
