-- 0005_cookie_jars_and_cache: each gateway session's cookie jar, and each tenant's HTTP cache index
-- (issue 6; ../shared/design.md, "The gateway").
--
-- A non-ephemeral session's cookies live here, one row per cookie, so that a login cookie one job
-- stores is sent by the session's next job on whichever ferryd runs it. Ephemeral sessions write
-- nothing here. Jobs outside a session keep no cookies at all.
--
-- A tenant's cache entries are indexed here; their bodies are files under the data directory
-- (<data>/cache/<tenant>/<entry>.body), which every ferryd of one database shares. The index is what
-- the per-tenant size limit is enforced on (least recently used first), and never across tenants.

CREATE TABLE session_cookies (
    tenant_id uuid NOT NULL,
    session_id uuid NOT NULL,
    -- Name, domain and path identify a cookie (RFC 6265 §5.3 step 11): a new one replaces the old.
    name text NOT NULL,
    domain text NOT NULL,
    path text NOT NULL,
    -- A credential: shown to the tenant through the API, never logged.
    value text NOT NULL,
    -- NULL: a session cookie, kept as long as the gateway session.
    expires_at timestamptz,
    secure boolean NOT NULL,
    http_only boolean NOT NULL,
    same_site text CHECK (same_site IN ('Strict', 'Lax', 'None')),
    host_only boolean NOT NULL,
    -- The cookie's creation time orders cookies of equal path length in a Cookie header (§5.4).
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, name, domain, path),
    -- Only the session's own tenant's cookies, and gone with the session (and so with the tenant).
    FOREIGN KEY (tenant_id, session_id) REFERENCES sessions (tenant_id, id) ON DELETE CASCADE
);

-- Every change of an entry takes the next revision, so a ferryd reads only what changed since its
-- last look before each job.
CREATE SEQUENCE cache_entry_revisions;

CREATE TABLE cache_entries (
    tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    -- "GET <url without fragment>" (URLLoading's ResponseCacheKey).
    key text NOT NULL,
    -- Relative to the data directory; a replaced entry gets a new file, so a reader never sees half.
    body_file text NOT NULL,
    -- Bytes counted against the tenant's limit: the body and a rough size of the head.
    cost bigint NOT NULL CHECK (cost >= 0),
    -- The response's head and the times its age is computed from, as JSON (TenantCacheEntry.Head).
    head jsonb NOT NULL,
    stored_at timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL,
    revision bigint NOT NULL DEFAULT nextval('cache_entry_revisions'),
    PRIMARY KEY (tenant_id, key)
);

CREATE INDEX cache_entries_by_use ON cache_entries (tenant_id, last_used_at);
CREATE INDEX cache_entries_by_revision ON cache_entries (tenant_id, revision);
