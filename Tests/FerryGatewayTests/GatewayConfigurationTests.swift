import FerryGateway
import FerryModel
import Foundation
import Testing

/// ferryd's configuration from FERRY_* variables and flags ("Running it").
@Suite
struct GatewayConfigurationTests {
    func configuration(_ environment: [String: String], flags: GatewayConfigurationFlags = .init()) throws -> GatewayConfiguration {
        try GatewayConfiguration(environment: environment, flags: flags, currentDirectory: "/srv/work")
    }

    func problems(_ environment: [String: String], flags: GatewayConfigurationFlags = .init()) -> [String] {
        do {
            _ = try configuration(environment, flags: flags)
            return []
        } catch {
            return (error as? GatewayConfigurationError)?.problems ?? ["\(error)"]
        }
    }

    @Test func withNothingSetEveryDefaultApplies() throws {
        let defaults = try configuration([:])
        #expect(defaults.port == 8080)
        #expect(defaults.host == "127.0.0.1")
        #expect(defaults.databaseURL == nil)
        #expect(defaults.dataDirectory == "/srv/work/.ferry")
        #expect(defaults.adminKey == nil)
        #expect(defaults.workers == 8)
        #expect(defaults.allowPrivateNetworks == false)
        #expect(defaults.migrationsDirectory == nil)
    }

    @Test func everyVariableIsRead() throws {
        let read = try configuration([
            "FERRY_PORT": "9090", "FERRY_HOST": "0.0.0.0",
            "FERRY_DATABASE_URL": "postgres://ferry:s3cret@db.internal:5433/gateway?sslmode=disable",
            "FERRY_DATA_DIR": "data/../state", "FERRY_ADMIN_KEY": "admin-key-123", "FERRY_WORKERS": "32",
            "FERRY_ALLOW_PRIVATE_NETWORKS": "true", "FERRY_MIGRATIONS_DIR": "/opt/ferry/migrations",
        ])
        #expect(read.port == 9090)
        #expect(read.host == "0.0.0.0")
        #expect(read.databaseURL?.host == "db.internal")
        #expect(read.databaseURL?.port == 5433)
        #expect(read.databaseURL?.database == "gateway")
        #expect(read.databaseURL?.password?.revealed == "s3cret")
        #expect(read.databaseURL?.tlsMode == .disable)
        #expect(read.dataDirectory == "/srv/work/state")
        #expect(read.adminKey?.revealed == "admin-key-123")
        #expect(read.workers == 32)
        #expect(read.allowPrivateNetworks)
        #expect(read.migrationsDirectory == "/opt/ferry/migrations")
    }

    @Test func flagsWinOverVariables() throws {
        let flags = GatewayConfigurationFlags(
            port: "7000", host: "::1", databaseURL: "postgresql://u@h/d", dataDirectory: "/var/lib/ferry", workers: "2",
            allowPrivateNetworks: "no", migrationsDirectory: "m")
        let read = try configuration(
            ["FERRY_PORT": "9090", "FERRY_HOST": "0.0.0.0", "FERRY_DATABASE_URL": "postgres://x@y/z", "FERRY_DATA_DIR": "/elsewhere",
             "FERRY_WORKERS": "4", "FERRY_ALLOW_PRIVATE_NETWORKS": "yes", "FERRY_MIGRATIONS_DIR": "/m"],
            flags: flags)
        #expect(read.port == 7000)
        #expect(read.host == "::1")
        #expect(read.databaseURL?.user == "u")
        #expect(read.dataDirectory == "/var/lib/ferry")
        #expect(read.workers == 2)
        #expect(!read.allowPrivateNetworks)
        #expect(read.migrationsDirectory == "/srv/work/m")
    }

    @Test(arguments: ["abc", "65536", "-1", "80.5", ""])
    func aBadPortIsNamedWithItsValue(_ value: String) {
        #expect(problems(["FERRY_PORT": value]).first == (value.isEmpty ? nil : "FERRY_PORT must be a number from 0 to 65535, got '\(value)'"))
        #expect(problems([:], flags: .init(port: value)) == ["--port must be a number from 0 to 65535, got '\(value)'"])
    }

    @Test func portsAtTheEdgesAreAccepted() throws {
        #expect(try configuration(["FERRY_PORT": "0"]).port == 0, "0: the system picks a free port")
        #expect(try configuration(["FERRY_PORT": "1"]).port == 1)
        #expect(try configuration(["FERRY_PORT": "65535"]).port == 65535)
    }

    @Test func aBadHostIsRefused() throws {
        #expect(problems(["FERRY_HOST": "my host"]) == ["FERRY_HOST must be an IP address or a host name, got 'my host'"])
        #expect(problems(["FERRY_HOST": "http://x"]) == ["FERRY_HOST must be an IP address or a host name, got 'http://x'"])
        #expect(try configuration(["FERRY_HOST": "[::1]"]).host == "::1")
        #expect(try configuration(["FERRY_HOST": "ferry.internal"]).host == "ferry.internal")
    }

    @Test(arguments: ["0", "1025", "many", "-3"])
    func aBadWorkerCountIsRefused(_ value: String) {
        #expect(problems(["FERRY_WORKERS": value]) == ["FERRY_WORKERS must be a number from 1 to 1024, got '\(value)'"])
    }

    @Test func privateNetworksAcceptTheUsualSpellingsOfYesAndNo() throws {
        for yes in ["true", "TRUE", "1", "yes", "Yes", "on"] {
            #expect(try configuration(["FERRY_ALLOW_PRIVATE_NETWORKS": yes]).allowPrivateNetworks, "\(yes)")
        }
        for no in ["false", "False", "0", "no", "NO", "off"] {
            #expect(try !configuration(["FERRY_ALLOW_PRIVATE_NETWORKS": no]).allowPrivateNetworks, "\(no)")
        }
        #expect(problems(["FERRY_ALLOW_PRIVATE_NETWORKS": "maybe"])
            == ["FERRY_ALLOW_PRIVATE_NETWORKS must be true or false (or 1/0, yes/no), got 'maybe'"])
    }

    @Test func theStorageQuotaPerTenantIsUnlimitedUnlessSet() throws {
        #expect(try configuration([:]).maxStorageBytesPerTenant == nil)
        #expect(try configuration(["FERRY_MAX_STORAGE_BYTES_PER_TENANT": "1073741824"]).maxStorageBytesPerTenant == 1 << 30)
        #expect(try configuration(["FERRY_MAX_STORAGE_BYTES_PER_TENANT": "0"]).maxStorageBytesPerTenant == 0)
        for bad in ["-1", "1G", "99999999999999999999"] {
            #expect(problems(["FERRY_MAX_STORAGE_BYTES_PER_TENANT": bad]).first?.hasPrefix("FERRY_MAX_STORAGE_BYTES_PER_TENANT") == true)
        }
    }

    @Test func contentIsKeptForEverUnlessARetentionIsSet() throws {
        #expect(try configuration([:]).contentRetentionDays == nil)
        #expect(try configuration(["FERRY_CONTENT_RETENTION_DAYS": "30"]).contentRetentionDays == 30)
        for bad in ["0", "-1", "a week"] {
            #expect(problems(["FERRY_CONTENT_RETENTION_DAYS": bad]).first?.hasPrefix("FERRY_CONTENT_RETENTION_DAYS") == true)
        }
    }

    @Test func anEmptyVariableCountsAsUnset() throws {
        let read = try configuration(["FERRY_DATABASE_URL": "", "FERRY_PORT": "", "FERRY_ADMIN_KEY": ""])
        #expect(read.databaseURL == nil)
        #expect(read.port == 8080)
        #expect(read.adminKey == nil)
    }

    @Test func everyProblemIsReportedAtOnce() {
        let found = problems(["FERRY_PORT": "x", "FERRY_WORKERS": "0", "FERRY_DATABASE_URL": "mysql://a@b/c"])
        #expect(found.count == 3)
        #expect(found.contains { $0.hasPrefix("FERRY_PORT") })
        #expect(found.contains { $0.hasPrefix("FERRY_WORKERS") })
        #expect(found.contains { $0.hasPrefix("FERRY_DATABASE_URL must start with postgres://") })
    }

    @Test func secretsNeverAppearInTheDescriptionOrInMessages() throws {
        let read = try configuration([
            "FERRY_ADMIN_KEY": "TOP-SECRET-ADMIN", "FERRY_DATABASE_URL": "postgres://ferry:TOP-SECRET-DB@db/ferry",
        ])
        let description = "\(read)"
        #expect(!description.contains("TOP-SECRET"))
        #expect(description.contains("postgres://ferry:<redacted>@db:5432/ferry"))
        #expect(description.contains("admin key set"))
        var dumped = ""
        dump(read, to: &dumped)
        #expect(!dumped.contains("TOP-SECRET"))

        let keyProblems = problems(["FERRY_ADMIN_KEY": "TOP SECRET\n"])
        #expect(keyProblems == ["FERRY_ADMIN_KEY must not contain spaces, line breaks or control characters"])
        let urlProblems = problems(["FERRY_DATABASE_URL": "postgres://ferry:TOP-SECRET-DB@db/ferry?sslmode=sometimes"])
        #expect(urlProblems.count == 1)
        #expect(!urlProblems.joined().contains("TOP-SECRET"))
    }
}
