import FerryModel
import FerryStore
import Testing

/// FERRY_DATABASE_URL in the forms libpq accepts.
@Suite
struct DatabaseURLTests {
    @Test func aFullURLIsTakenApart() throws {
        let url = try DatabaseURL(parsing: "postgres://ferry:p%40ss@db.example:6543/gateway?sslmode=require")
        #expect(url.user == "ferry")
        #expect(url.password?.revealed == "p@ss")
        #expect(url.host == "db.example")
        #expect(url.port == 6543)
        #expect(url.database == "gateway")
        #expect(url.tlsMode == .require)
        #expect(url.clientConfiguration.host == "db.example")
        #expect(url.clientConfiguration.port == 6543)
        #expect(url.clientConfiguration.database == "gateway")
    }

    @Test func libpqDefaultsApply() throws {
        let url = try DatabaseURL(parsing: "postgresql://ferry@localhost")
        #expect(url.port == 5432)
        #expect(url.database == nil)
        #expect(url.password == nil)
        #expect(url.tlsMode == .prefer)
        #expect(url.description == "postgres://ferry@localhost:5432/?sslmode=prefer")
    }

    @Test func aSocketDirectoryConnectsThroughTheUnixSocket() throws {
        let url = try DatabaseURL(parsing: "postgres://ferry@/gateway?host=/var/run/postgresql")
        #expect(url.clientConfiguration.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(url.clientConfiguration.host == nil)
    }

    @Test(arguments: [
        ("http://ferry@db/x", "FERRY_DATABASE_URL must start with postgres:// or postgresql://, got 'http://'"),
        ("postgres://db/x", "FERRY_DATABASE_URL must name a user (postgres://user:password@host:port/database)"),
        ("postgres://u@db/x?sslmode=allow", "FERRY_DATABASE_URL has sslmode='allow'; accepted values are disable, prefer, require, verify-ca, verify-full"),
        ("postgres://u@db/x?timeout=3", "FERRY_DATABASE_URL has an unsupported parameter 'timeout' (supported: sslmode, host)"),
        ("postgres://u@db/a/b", "FERRY_DATABASE_URL has the path '/a/b'; it must be a single database name"),
        ("not a url at all", "FERRY_DATABASE_URL is not a URL of the form postgres://user:password@host:port/database"),
    ])
    func badURLsAreExplained(_ text: String, _ message: String) {
        #expect(throws: GatewayConfigurationError(message)) { try DatabaseURL(parsing: text) }
    }
}
