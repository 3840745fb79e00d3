-- 0013_secrets_sealed_at_rest: webhook signing secrets and cookie values sealed with the vault key
-- (issue 18, "Secrets and storage"), as credentials are (0004).
--
-- Sealing needs the vault key, which SQL does not have: ferryd seals every value before it reaches
-- a statement, so the tables, a dump and the WAL hold only AES-256-GCM boxes (`key_id`: which vault
-- key sealed it; the box: nonce | ciphertext | tag, authenticating the column and row it belongs to).
-- The values stored before this migration are sealed by ferryd in Swift, at its first start after it
-- (`PlainSecretsSealing`, before the API serves), which then clears their plain columns and sets
-- `vault_sealing.plain_values_sealed_at`; `ferryd admin rotate-vault-key` seals any left as well.
--
-- Secrets inside JSON documents need no new column: a credential-bearing header of `jobs.request`
-- (and its copies in `job_events.job`) or `sessions.configuration` keeps `"value": "<redacted>"` and
-- gains `"sealed": {"key_id", "box"}`; a proxy URL with a password is sealed whole in
-- `configuration.proxy_sealed`; `jobs.resume_data` becomes `{"partial_file", "offset", "sealed"}`.

-- The tenant's secret and, after a rotation, the previous one, each sealed; `secret` and
-- `previous_secret` hold only rows from before this migration until they are sealed.
ALTER TABLE webhook_secrets
    ADD COLUMN key_id text,
    ADD COLUMN sealed bytea,
    ADD COLUMN previous_key_id text,
    ADD COLUMN previous_sealed bytea,
    ALTER COLUMN secret DROP NOT NULL,
    DROP CONSTRAINT webhook_secrets_check,
    ADD CONSTRAINT webhook_secrets_current_present_check CHECK (secret IS NOT NULL OR (key_id IS NOT NULL AND sealed IS NOT NULL)),
    ADD CONSTRAINT webhook_secrets_previous_check
        CHECK ((previous_secret IS NULL AND previous_sealed IS NULL) = (previous_valid_until IS NULL)),
    ADD CONSTRAINT webhook_secrets_sealed_pairs_check
        CHECK ((key_id IS NULL) = (sealed IS NULL) AND (previous_key_id IS NULL) = (previous_sealed IS NULL));

ALTER TABLE webhook_endpoints
    ADD COLUMN secret_key_id text,
    ADD COLUMN secret_sealed bytea,
    ALTER COLUMN secret DROP NOT NULL,
    ADD CONSTRAINT webhook_endpoints_secret_present_check
        CHECK (secret IS NOT NULL OR (secret_key_id IS NOT NULL AND secret_sealed IS NOT NULL)),
    ADD CONSTRAINT webhook_endpoints_sealed_pair_check CHECK ((secret_key_id IS NULL) = (secret_sealed IS NULL));

-- A cookie's value, sealed for its session, name, domain and path; `value` as for the secrets above.
ALTER TABLE session_cookies
    ADD COLUMN value_key_id text,
    ADD COLUMN value_sealed bytea,
    ALTER COLUMN value DROP NOT NULL,
    ADD CONSTRAINT session_cookies_value_present_check CHECK (value IS NOT NULL OR (value_key_id IS NOT NULL AND value_sealed IS NOT NULL)),
    ADD CONSTRAINT session_cookies_sealed_pair_check CHECK ((value_key_id IS NULL) = (value_sealed IS NULL));

-- One row: when ferryd sealed the values stored before this migration. NULL until then; while it
-- is NULL every start looks for plain values (a look that costs a scan of the jobs and events).
CREATE TABLE vault_sealing (
    id integer PRIMARY KEY CHECK (id = 1),
    plain_values_sealed_at timestamptz
);
INSERT INTO vault_sealing (id) VALUES (1);
