@testable import FerryAPI
@testable import FerryMetrics
@testable import FerryStore
@testable import FerryVault
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import Testing

/// `GET /openapi.json` and the document's coverage of the router. Every other gateway test
/// checks its replies against the document through `GatewayClient`.
@Suite("Gateway OpenAPI", .timeLimit(.minutes(5)))
struct GatewayOpenAPITests {
    /// The router ferryd serves, built without a database (nothing connects until a route runs).
    static func routes() -> Set<String> {
        let logger = Logger(label: "openapi-test")
        let client = DatabasePool(
            clientConfiguration: .init(host: "127.0.0.1", username: "nobody", password: nil, database: nil, tls: .disable),
            probeConfiguration: .init(host: "127.0.0.1", username: "nobody", password: nil, database: nil, tls: .disable),
            logger: logger)
        let router = APIRouter.build(.stores(
            client: client, vault: try! VaultKeyring(keys: [try! VaultKey(base64: VaultKey.generateText())]),
            files: GatewayFiles(dataDirectory: NSTemporaryDirectory()), metrics: GatewayMetrics(), exposition: PrometheusExposition(),
            eventFeed: JobEventFeed(client: client, logger: logger), decisionCredentials: nil, logger: logger))
        return Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
    }

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// "GET /v1/jobs/{id}" for each operation in the document.
    static func operations(_ document: JSONValue) -> Set<String> {
        var found: Set<String> = []
        for (path, item) in document["paths"]?.object ?? [:] {
            for method in methods where item[method] != nil { found.insert("\(method.uppercased()) \(path)") }
        }
        return found
    }

    @Test("GET /openapi.json serves the OpenAPI 3.1 document without a key, and it describes exactly the routes the router has")
    func documentDescribesEveryRoute() async throws {
        try await GatewayFixture.with { fixture in
            let reply = try await fixture.admin.with(key: nil).get("/openapi.json")
            #expect(reply.status == 200)
            #expect(reply.headers["Content-Type"] == "application/json")
            #expect(reply.body == Data(OpenAPIDocument.json.utf8), "ferryd serves the document compiled into it")
            let document = try JSONValue.parse(reply.body)
            let version = try #require(document["openapi"]?.string)
            #expect(version.hasPrefix("3.1."), "\(version)")
            #expect(document["info"]?["title"]?.string != nil)

            let routed = Self.routes()
            #expect(routed.contains("GET /openapi.json"))
            #expect(routed.count >= 20, "the router walk found the routes: \(routed.sorted())")
            let documented = Self.operations(document)
            #expect(routed.subtracting(documented).isEmpty, "routes the document lacks: \(routed.subtracting(documented).sorted())")
            #expect(documented.subtracting(routed).isEmpty, "documented routes that do not exist: \(documented.subtracting(routed).sorted())")
        }
    }

    @Test("routes the other gateway tests do not reach answer as the document says: admin job controls, key creation, refusals, unknown routes")
    func remainingRoutes() async throws {
        try await GatewayFixture.with(options: .init(workers: 1)) { fixture in
            let (tenant, client) = try await fixture.tenant()
            let admin = fixture.admin
            let blocker = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/\(8 << 20)?pace_ms=50")]])
            _ = try await client.waitForState(blocker, ["running"])
            let waiting = try await client.submit(["kind": "download", "request": ["url": fixture.origin.url("/bytes/10")], "retry": ["max_attempts": 2]])
            #expect(try await admin.post("/v1/admin/jobs/\(waiting)/pause").status == 200)
            #expect(try await admin.post("/v1/admin/jobs/\(waiting)/pause").status == 409)
            #expect(try await admin.post("/v1/admin/jobs/\(waiting)/resume").status == 200)
            #expect(try await admin.post("/v1/admin/jobs/\(waiting)/cancel").status == 200)
            #expect(try await client.delete("/v1/jobs/\(blocker)").status == 409, "a running job cannot be deleted")
            #expect(try await client.get("/v1/jobs/\(blocker)/content").status == 409, "a running job has no content")
            let stop = try await admin.post("/v1/admin/jobs/\(blocker)/cancel")
            #expect(stop.status == 202)
            #expect(stop["tenant"] as? String == tenant)
            _ = try await client.waitForState(blocker, ["cancelled"])
            #expect(try await admin.get("/v1/admin/jobs?state=cancelled&limit=1").status == 200)
            #expect(try await admin.get("/v1/admin/jobs?limit=0").status == 400)
            #expect(try await admin.get("/v1/admin/jobs/not-a-uuid").status == 404)
            #expect(try await admin.get("/v1/admin/jobs/\(UUID().uuidString)").status == 404)

            let labelled = try await admin.post("/v1/admin/tenants/\(tenant)/keys", json: ["label": "ci"])
            #expect(labelled.status == 201)
            #expect(labelled["label"] as? String == "ci")
            #expect(try await admin.post("/v1/admin/tenants/\(tenant)/keys").status == 201)
            #expect(try await admin.post("/v1/admin/tenants/\(UUID().uuidString)/keys").status == 404)
            let keys = try await admin.get("/v1/admin/tenants/\(tenant)/keys")
            #expect((keys["keys"] as? [Any])?.count == 3)
            #expect(try await admin.get("/v1/admin/tenants/nobody/keys").status == 404)
            #expect(try await admin.get("/v1/admin/tenants/\(UUID().uuidString)/keys").status == 404)
            #expect(try await admin.send("POST", "/v1/admin/tenants/\(tenant)/keys", body: Data("{".utf8)).status == 400)
            #expect(try await admin.post("/v1/admin/tenants/\(tenant)/keys", json: ["label": 5]).status == 400)
            #expect(try await admin.delete("/v1/admin/tenants/\(tenant)/keys/\(UUID().uuidString)").status == 404)
            let badTenant = try await admin.post("/v1/admin/tenants", json: ["name": " ", "max_queued_jobs": 0])
            #expect(badTenant.status == 400)
            #expect(Set(((badTenant["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String }) == ["name", "max_queued_jobs"])

            #expect(try await admin.send("PUT", "/v1/blobs", body: Data("x".utf8)).status == 403)
            #expect(try await client.get("/v1/admin/tenants").status == 403)
            let longKey = try await client.send(
                "POST", "/v1/jobs", json: ["kind": "download", "request": ["url": fixture.origin.url("/bytes/10")]],
                headers: ["Idempotency-Key": String(repeating: "k", count: 256)])
            #expect(longKey.status == 400)
            let noBlob = try await client.post("/v1/jobs", json: [
                "kind": "upload", "request": ["url": fixture.origin.url("/echo"), "body": ["blob": UUID().uuidString]],
            ])
            #expect(noBlob.code == "blob_not_found")
            #expect(try await client.get("/v1/nothing").status == 404)
            #expect(try await client.send("PATCH", "/v1/jobs").status == 405)
            #expect(try await client.with(key: nil).get("/readyz").status == 200)
        }
    }

    @Test("the document compiled in is Sources/FerryAPI/Embedded/openapi.json byte for byte: the file is its one copy")
    func documentIsTheSourceFile() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try Data(contentsOf: root.appending(path: "Sources/FerryAPI/Embedded/openapi.json"))
        #expect(Data(OpenAPIDocument.bytes) == file)
        #expect(OpenAPIDocument.json.utf8.count == file.count)
    }

    @Test("every /v1 operation needs the bearer key; /healthz, /readyz and /openapi.json need none; every operation documents its errors as problems")
    func securityAndErrors() throws {
        let document = try JSONValue.parse(Data(OpenAPIDocument.json.utf8))
        #expect(document["security"] == .array([.object(["bearer": .array([])])]))
        #expect(document["components"]?["securitySchemes"]?["bearer"]?["scheme"]?.string == "bearer")
        let validator = JSONSchemaValidator(root: document)
        for (path, item) in document["paths"]?.object ?? [:] {
            for method in Self.methods {
                guard let operation = item[method] else { continue }
                let name = "\(method.uppercased()) \(path)"
                if path.hasPrefix("/v1/") {
                    #expect(operation["security"] == nil, "\(name) keeps the document's bearer requirement")
                    #expect(operation["responses"]?["401"] != nil, "\(name) documents its 401")
                } else {
                    #expect(operation["security"] == .array([]), "\(name) needs no key")
                }
                for (status, response) in operation["responses"]?.object ?? [:] where status.hasPrefix("4") || status.hasPrefix("5") {
                    let resolved = response["$ref"]?.string.flatMap(validator.resolve) ?? response
                    #expect(resolved["content"]?.object?.keys.sorted() == ["application/problem+json"], "\(name) \(status) is a problem")
                }
            }
        }
    }

    @Test("every schema in the document uses only keywords and formats the contract check validates")
    func schemasAreChecked() throws {
        let document = try JSONValue.parse(Data(OpenAPIDocument.json.utf8))
        var unsupported: [String] = []
        for (name, schema) in document["components"]?["schemas"]?.object ?? [:] {
            unsupported += JSONSchemaValidator.unsupported(in: schema, at: "components.schemas.\(name)")
        }
        /// Every `schema` of a parameter, header or media type, wherever it is.
        func walk(_ value: JSONValue, _ path: String) {
            switch value {
            case .object(let members):
                for (key, member) in members {
                    if key == "schema" {
                        unsupported += JSONSchemaValidator.unsupported(in: member, at: "\(path).schema")
                    } else if key != "schemas" {
                        walk(member, "\(path).\(key)")
                    }
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() { walk(element, "\(path)[\(index)]") }
            default:
                break
            }
        }
        walk(document, "$")
        #expect(unsupported.isEmpty, "\(unsupported.sorted())")
    }
}
