@testable import FerryAPI
import Foundation
import Testing
import URLLoading

/// The contract check itself, against the document ferryd serves, without a server: replies the
/// document allows pass, and each kind of wrong reply is caught.
@Suite("OpenAPI contract check")
struct OpenAPIContractTests {
    static let contract = OpenAPIContract(document: try! JSONValue.parse(Data(OpenAPIDocument.json.utf8)))
    static let json: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
    static let problemJSON: HTTPHeaders = ["Content-Type": "application/problem+json"]

    static var job: [String: Any] {
        [
            "id": "0e3b6c1a-5d2f-4c8e-9a7b-1f2e3d4c5b6a", "kind": "download", "state": "succeeded", "attempt": 1, "max_attempts": 3,
            "priority": 0, "created_at": "2026-11-23T06:46:19.123Z", "updated_at": "2026-11-23T06:46:20.004Z",
            "finished_at": "2026-11-23T06:46:20.004Z",
            "request": ["url": "http://127.0.0.1:9/bytes/10", "method": "GET", "headers": ["authorization": "<redacted>"]],
            "progress": ["bytes_done": 10, "bytes_expected": 10, "rate": 1000],
            "response": ["status": 200, "headers": ["content-type": "application/octet-stream"], "url": "http://127.0.0.1:9/bytes/10"],
            "result": ["size": 10, "sha256": String(repeating: "ab", count: 32), "content_type": "application/octet-stream"],
        ]
    }

    static func body(_ object: [String: Any]) -> Data { try! JSONSerialization.data(withJSONObject: object) }

    static func violations(_ method: String, _ path: String, _ status: Int, _ object: [String: Any], headers: HTTPHeaders = json) -> [String] {
        contract.violations(method: method, path: path, status: status, headers: headers, body: body(object))
    }

    @Test("a tenant's job, an admin's job with its tenant, and a page of jobs conform")
    func conformingJobs() {
        #expect(Self.violations("GET", "/v1/jobs/\(Self.job["id"]!)", 200, Self.job) == [])
        var adminJob = Self.job
        adminJob["tenant"] = "9a7b1f2e-3d4c-4b6a-8e9a-7b1f2e3d4c5b"
        #expect(Self.violations("GET", "/v1/admin/jobs/x", 200, adminJob) == [])
        #expect(Self.violations("GET", "/v1/jobs?limit=3&cursor=abc", 200, ["jobs": [Self.job], "next_cursor": "abc"]) == [])
        var location = Self.json
        location.add(name: "Location", value: "/v1/jobs/x")
        #expect(Self.violations("POST", "/v1/jobs", 201, Self.job, headers: location) == [])
    }

    /// One way a job can be wrong, applied to a good one.
    enum WrongJob: String, CaseIterable, Sendable {
        case undocumentedField, missingRequiredField, upperCaseID, notRFC3339, nullForAbsent, tenantShown, unknownState
        case numberAsString, undocumentedNestedField, booleanForInteger

        func apply(to job: inout [String: Any]) {
            switch self {
            case .undocumentedField: job["secret"] = "x"
            case .missingRequiredField: job["state"] = nil
            case .upperCaseID: job["id"] = "0E3B6C1A-5D2F-4C8E-9A7B-1F2E3D4C5B6A"
            case .notRFC3339: job["created_at"] = "23/11/2026 06:46"
            case .nullForAbsent: job["finished_at"] = NSNull()
            case .tenantShown: job["tenant"] = "9a7b1f2e-3d4c-4b6a-8e9a-7b1f2e3d4c5b"
            case .unknownState: job["state"] = "sleeping"
            case .numberAsString: job["progress"] = ["bytes_done": "10"]
            case .undocumentedNestedField: job["result"] = ["size": 10, "sha256": String(repeating: "ab", count: 32), "file": "files/x"]
            case .booleanForInteger: job["attempt"] = true
            }
        }
    }

    @Test("each kind of wrong job is caught", arguments: WrongJob.allCases)
    func wrongJobs(_ wrong: WrongJob) {
        var job = Self.job
        wrong.apply(to: &job)
        #expect(!Self.violations("GET", "/v1/jobs/x", 200, job).isEmpty, "\(wrong) passed")
    }

    @Test("an admin's job without its tenant, an undocumented status, a missing header, and a body where none is documented are caught")
    func wrongReplies() {
        #expect(!Self.violations("GET", "/v1/admin/jobs/x", 200, Self.job).isEmpty)
        #expect(!Self.violations("GET", "/v1/jobs/x", 418, Self.job).isEmpty)
        #expect(!Self.violations("GET", "/v1/jobs/x", 201, Self.job).isEmpty)
        #expect(!Self.violations("POST", "/v1/jobs", 201, Self.job).isEmpty, "a 201 without Location")
        #expect(!Self.violations("DELETE", "/v1/jobs/x", 204, ["deleted": true]).isEmpty)
        #expect(Self.contract.violations(method: "DELETE", path: "/v1/jobs/x", status: 204, headers: [:], body: Data()) == [])
    }

    @Test("a view that leaves a property out (x-ferry-absent) is caught when it shows it: a listed tenant's key")
    func absentProperties() {
        let tenant: [String: Any] = [
            "id": "9a7b1f2e-3d4c-4b6a-8e9a-7b1f2e3d4c5b", "name": "acme", "created_at": "2026-11-23T06:46:19.123Z", "disabled": false,
        ]
        #expect(Self.violations("GET", "/v1/admin/tenants", 200, ["tenants": [tenant]]) == [])
        let leaked = tenant.merging(["api_key": "ferry_x"]) { $1 }
        #expect(!Self.violations("GET", "/v1/admin/tenants", 200, ["tenants": [leaked]]).isEmpty)
        #expect(Self.violations("POST", "/v1/admin/tenants", 201, leaked) == [])
    }

    @Test("problems: the document's shape, application/problem+json, and the status of the response")
    func problems() {
        let problem: [String: Any] = [
            "type": "https://ferry.invalid/problems/not_found", "title": "Not Found", "status": 404, "detail": "job x was not found", "code": "not_found",
        ]
        #expect(Self.violations("GET", "/v1/jobs/x", 404, problem, headers: Self.problemJSON) == [])
        #expect(!Self.violations("GET", "/v1/jobs/x", 404, problem).isEmpty, "a problem sent as application/json")
        #expect(!Self.violations("GET", "/v1/jobs/x", 409, problem, headers: Self.problemJSON).isEmpty, "status 404 in a 409")
        #expect(!Self.violations("GET", "/v1/jobs/x", 404, problem.merging(["trace": "x"]) { $1 }, headers: Self.problemJSON).isEmpty)
        #expect(!Self.violations("GET", "/v1/jobs/x", 404, problem.merging(["errors": [Any]()]) { $1 }, headers: Self.problemJSON).isEmpty, "errors: [] instead of absent")
        var invalid = problem
        invalid["status"] = 400
        invalid["code"] = "invalid_request"
        #expect(!Self.violations("GET", "/v1/jobs", 400, invalid, headers: Self.problemJSON).isEmpty, "a 400 without its field errors")
        invalid["errors"] = [["field": "limit", "message": "must be a number from 1 to 500"]]
        #expect(Self.violations("GET", "/v1/jobs", 400, invalid, headers: Self.problemJSON) == [])
        // Not a route: the router's 404 problem is fine, anything else is not.
        #expect(Self.violations("GET", "/v2/nothing", 404, problem, headers: Self.problemJSON) == [])
        #expect(!Self.violations("GET", "/v2/nothing", 200, [:]).isEmpty)
        #expect(!Self.violations("PATCH", "/v1/jobs/x", 200, Self.job).isEmpty)
    }

    @Test("a job's content is not inspected, whatever its type")
    func content() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "Accept-Ranges": "bytes", "ETag": "\"x\"", "Content-Length": "5"]
        #expect(Self.contract.violations(method: "GET", path: "/v1/jobs/x/content", status: 200, headers: headers, body: Data("hello".utf8)) == [])
        #expect(!Self.contract.violations(method: "GET", path: "/v1/jobs/x/content", status: 206, headers: headers, body: Data("hello".utf8)).isEmpty,
                "a 206 without Content-Range")
    }
}
