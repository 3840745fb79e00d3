// The test database, ferryd process and PostgreSQL probes live in FerrydTestSupport, shared with the
// `ferry` client's tests; re-exported so every file here sees them without an import each.
@_exported import FerrydTestSupport
