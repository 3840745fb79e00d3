-- A tenant's own content retention: days a succeeded job's content and an unused blob are kept,
-- between a job's own retention_days and ferryd's FERRY_CONTENT_RETENTION_DAYS. NULL: ferryd's.
ALTER TABLE tenants ADD COLUMN content_retention_days integer
    CONSTRAINT tenants_content_retention_days_range CHECK (content_retention_days BETWEEN 1 AND 36500);
