-- 0007_claimable_jobs_index: what the claim statement reads (issue 3, bench P3). A claim takes at
-- most a few jobs; it used to rank every waiting job of every tenant (a sort of the whole queue per
-- claim, 15 ms with 2,000 queued jobs). With each tenant's waiting jobs in turn order in one index,
-- it reads only the first few of each tenant that has any.
CREATE INDEX jobs_claimable ON jobs (tenant_id, priority DESC, created_at, id) WHERE state IN ('queued', 'retrying');
-- jobs_for_claiming stays: counting running jobs and the metrics read jobs by state.
