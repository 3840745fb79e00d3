-- 0004_credential_vault: the tenants' stored credentials (issue 6; ../shared/design.md, "The gateway").
--
-- A credential answers challenges of one protection space (scheme, host, port, optional realm,
-- method), like the seeds' credential storage. Its secret (password, token, client identity, pins
-- or CA certificate) is only ever stored sealed: AES-256-GCM under the vault key named by key_id,
-- `sealed` being nonce | ciphertext | tag, with the tenant id and the row id as associated data,
-- so a row copied to another tenant, or a ciphertext copied into another row, does not open.
-- Nothing of the secret is in any other column: the views show metadata only.

CREATE TABLE credentials (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    scheme text NOT NULL CHECK (scheme IN ('http', 'https', 'ftp', 'ftps')),
    host text NOT NULL CHECK (length(host) BETWEEN 1 AND 253 AND host = lower(host)),
    port integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
    -- NULL: any realm of the space.
    realm text CHECK (length(realm) BETWEEN 1 AND 1000),
    method text NOT NULL CHECK (method IN ('basic', 'digest', 'bearer', 'client_certificate', 'server_trust')),
    -- permanent: every job of the tenant; session: only the jobs of session_id.
    persistence text NOT NULL CHECK (persistence IN ('session', 'permanent')),
    session_id uuid,
    -- Which kind of secret is sealed (password, token, identity, trust); never the secret itself.
    secret_kind text NOT NULL CHECK (secret_kind IN ('password', 'token', 'identity', 'trust')),
    key_id text NOT NULL CHECK (length(key_id) BETWEEN 1 AND 64),
    sealed bytea NOT NULL CHECK (length(sealed) > 28),
    created_at timestamptz NOT NULL DEFAULT now(),
    -- Set by `ferryd admin rotate-vault-key` when it seals the secret again under the current key.
    resealed_at timestamptz,
    CHECK ((persistence = 'session') = (session_id IS NOT NULL)),
    -- A session's credential belongs to a session of the same tenant, and goes with it.
    FOREIGN KEY (tenant_id, session_id) REFERENCES sessions (tenant_id, id) ON DELETE CASCADE
);
-- Listing (newest first, cursor pages) and finding a job's candidates for a space.
CREATE INDEX credentials_by_tenant ON credentials (tenant_id, created_at, id);
CREATE INDEX credentials_by_space ON credentials (tenant_id, host, port, scheme);
