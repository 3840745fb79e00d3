-- A tenant's storage quota: bytes of its blobs and of its succeeded jobs' content together
-- (`StorageQuota` in FerryStore adds them up from these tables). NULL: ferryd's
-- FERRY_MAX_STORAGE_BYTES_PER_TENANT, which is unlimited unless set. Numbered 0016, not 0014, so that
-- migrations written at the same time on other branches keep their numbers.
ALTER TABLE tenants
    ADD COLUMN max_storage_bytes bigint CONSTRAINT tenants_max_storage_bytes_not_negative CHECK (max_storage_bytes >= 0);
