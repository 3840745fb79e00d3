-- 0022_job_counts_by_state: /metrics and the admin's overview read the number of jobs in each state
-- from counts the triggers on jobs keep, instead of counting every job ever kept at each read.
--
-- `SELECT state, count(*) FROM jobs GROUP BY state` reads the whole table, and jobs stay until a
-- client deletes them: a Prometheus scrape cost grew with every job ever run, and the P3 bench's
-- scrapes (every 50 ms, on a table of 2,000 jobs) were ~8 % of PostgreSQL's CPU.
--
-- Every statement that inserts, changes the state of or deletes jobs adds its net change per state
-- to rows of its own backend (`pg_backend_pid()`): two transactions never write the same row, so no
-- claim or finish waits for another's commit, as one shared row per state would make them. A reader
-- sums the rows; it also folds the rows of backends that are gone into backend 0 (JobStateCounts),
-- so the table holds about one row per state and live connection.
CREATE TABLE job_state_counts (
    state   text    NOT NULL,
    backend integer NOT NULL,
    jobs    bigint  NOT NULL,
    PRIMARY KEY (state, backend)
) WITH (fillfactor = 50);

-- Each function adds in the order of the states, so a fold and a backend whose pid was reused lock
-- their common rows in the same order.
CREATE FUNCTION ferry_count_inserted_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_state_counts AS c (state, backend, jobs)
    SELECT n.state, pg_backend_pid(), count(*) FROM inserted_jobs n GROUP BY n.state ORDER BY n.state
    ON CONFLICT (state, backend) DO UPDATE SET jobs = c.jobs + excluded.jobs;
    RETURN NULL;
END;
$$;

-- A row that keeps its state adds +1 and -1 to it: a statement that changes no state (a heartbeat,
-- progress) nets to nothing and writes nothing.
CREATE FUNCTION ferry_count_changed_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_state_counts AS c (state, backend, jobs)
    SELECT d.state, pg_backend_pid(), sum(d.change)
    FROM (
        SELECT n.state, 1 AS change FROM changed_jobs n
        UNION ALL
        SELECT o.state, -1 FROM previous_jobs o
    ) d
    GROUP BY d.state HAVING sum(d.change) <> 0 ORDER BY d.state
    ON CONFLICT (state, backend) DO UPDATE SET jobs = c.jobs + excluded.jobs;
    RETURN NULL;
END;
$$;

CREATE FUNCTION ferry_count_deleted_jobs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_state_counts AS c (state, backend, jobs)
    SELECT o.state, pg_backend_pid(), -count(*) FROM deleted_jobs o GROUP BY o.state ORDER BY o.state
    ON CONFLICT (state, backend) DO UPDATE SET jobs = c.jobs + excluded.jobs;
    RETURN NULL;
END;
$$;

CREATE FUNCTION ferry_forget_job_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_state_counts;
    RETURN NULL;
END;
$$;

CREATE TRIGGER jobs_count_inserted AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS inserted_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_count_inserted_jobs();
CREATE TRIGGER jobs_count_changed AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS previous_jobs NEW TABLE AS changed_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_count_changed_jobs();
CREATE TRIGGER jobs_count_deleted AFTER DELETE ON jobs
    REFERENCING OLD TABLE AS deleted_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_count_deleted_jobs();
CREATE TRIGGER jobs_count_truncated AFTER TRUNCATE ON jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry_forget_job_counts();

-- The jobs there are now. CREATE TRIGGER has locked jobs against writes until this transaction
-- commits, so no change falls between this count and the triggers.
INSERT INTO job_state_counts (state, backend, jobs)
SELECT state, 0, count(*) FROM jobs GROUP BY state;
