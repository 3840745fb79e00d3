-- 0012_queue_tables_keep_their_pages: VACUUM no longer gives back the empty end of jobs and
-- job_attempts (issue 3, bench P3).
--
-- When a queue drains, VACUUM truncates these tables to zero pages. A statement planned then (a
-- worker's idle claim) sees a table with no pages, where a sequential scan costs nothing, and its
-- prepared plan keeps scanning sequentially after the next burst of jobs arrives, until the next
-- ANALYZE: in the P3 bench, runs that started after such a vacuum read 0.4 to 0.6 million buffers in
-- their claims instead of 0.13 million. Kept pages make a sequential scan cost what it reads.
ALTER TABLE jobs SET (vacuum_truncate = false);
ALTER TABLE job_attempts SET (vacuum_truncate = false);
