-- 0009_queue_autovacuum: jobs and their attempt records are vacuumed and analysed after a few hundred
-- changes instead of after a fifth of the table (issue 3, bench P3).
--
-- Every job is inserted, updated at least twice (claimed, finished) and in the end deleted, and
-- every update of its state leaves a dead row version and dead entries in most of its indexes. With
-- the defaults (20% of the table plus 50 rows, 10% for statistics) a table of a few thousand live
-- jobs collects tens of thousands of dead versions between vacuums, which every claim, count and
-- status read then steps over: in the P3 bench PostgreSQL's CPU per 2,000 jobs grew from 1.9 to
-- 3.6 s over five runs, and stayed at 2.4 to 2.8 s with these settings. Fresh statistics also keep
-- the claim's plan on the indexes it is written for.
ALTER TABLE jobs SET (
    autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 500,
    autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 500
);
ALTER TABLE job_attempts SET (
    autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 500,
    autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 500
);
