-- 0025_event_snapshots_not_analyzed: ANALYZE no longer gathers statistics of job_events.job.
--
-- Every job writes three or more events, so autovacuum analyzes job_events often (in the P3 bench,
-- about once a run of 2,000 jobs). For the job_snapshot composite of 0023 it sorted its whole
-- sample (30,000 rows) by comparing records field by field: of 24,000 events, ANALYZE took
-- 190 to 240 ms with this column and 24 to 30 ms without it, all of it PostgreSQL's CPU while jobs
-- run. No statement filters or sorts events by their job snapshot, so no plan needs its statistics.
ALTER TABLE job_events ALTER COLUMN job SET STATISTICS 0;
