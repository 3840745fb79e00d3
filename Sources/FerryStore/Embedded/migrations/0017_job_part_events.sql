-- 0017_job_part_events: a `job.part` event for each part of a multipart/x-mixed-replace response
-- (issue 21, LC-10).
--
-- Such a response is a series of parts, each replacing the one before; the job's content is the last
-- complete part. Each part ended is one job_events row of type 'job.part', written by its worker
-- (not by a trigger: no state changes), with the job row as for every event and the part itself
-- here: {"index", "headers", "size"}, headers redacted as every view redacts them (the values of
-- Authorization, Cookie, Set-Cookie and the like are never stored). Null for every other event.
ALTER TABLE job_events ADD COLUMN part jsonb;
