/// The statements every job runs, prepared once per connection (`PostgresPreparedStatement`).
///
/// A query sent as text is parsed, analysed and planned on every execution: in the P3 bench that was
/// about 40% of PostgreSQL's CPU, most of it for the few statements each job runs (its insert, its
/// claim, its finish). Prepared, PostgreSQL plans them a few times and then reuses a generic plan;
/// their SQL is written so that the generic plan is as good as any (see `ClaimJobsStatement`).
/// Parameter types are given, not inferred from the first call's values, where a nil would leave them open.
enum PreparedStatements {}
