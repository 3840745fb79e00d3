import Foundation
import Testing

/// Hostile and careless input gets a 400 that names the field, checked in bytes as the database and
/// the wire see them, never a 500 from PostgreSQL or a request line split by a header value.
@Suite("Routes: input validation", .timeLimit(.minutes(2)))
struct InputValidationRouteTests {
    @Test func nulIsRefusedInEveryStringWithItsField() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let nul = "\u{0}"
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/batch", key: tenant.key, json: ["jobs": [
                    RouteFixture.download(), RouteFixture.download("http://127.0.0.1:9/\(nul)"),
                ]]), 400, "invalid_request", fields: ["jobs.1.request.url"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(
                    RouteFixture.unreachable, ["callback": ["url": "http://h.example/\(nul)"]])),
                400, "invalid_request", fields: ["callback.url"])
            app.expectProblem(
                try await app.send(.post, "/v1/sessions", key: tenant.key, json: [
                    "kind": "default", "configuration": ["proxy": "http://proxy.example:3128\(nul)"],
                ]), 400, "invalid_request", fields: ["configuration.proxy"])
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).list("jobs").isEmpty, "nothing half-written")
            // A backslash followed by the text u0000 is no NUL.
            let literal = try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": #"a\u0000b"#])
            #expect(literal.status == 201)
            #expect(literal["name"] as? String == #"a\u0000b"#)
        }
    }

    @Test func headerValuesAndMethodsAreCheckedInBytes() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            // "\r\n" is one Swift Character: a character-wise search for "\r" or "\n" misses it.
            for value in ["a\r\nInjected: yes", "a\u{1}b", "a\u{7F}b", "a\nb"] {
                app.expectProblem(
                    try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(
                        RouteFixture.unreachable, ["request": ["url": RouteFixture.unreachable, "headers": ["X-Note": value]]])),
                    400, "invalid_request", fields: ["request.headers.X-Note"])
                app.expectProblem(
                    try await app.send(.post, "/v1/sessions", key: tenant.key, json: [
                        "kind": "default", "configuration": ["additional_headers": ["X-Note": value]],
                    ]), 400, "invalid_request", fields: ["configuration.additional_headers.X-Note"])
            }
            let tab = try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(
                RouteFixture.unreachable, ["request": ["url": RouteFixture.unreachable, "headers": ["X-Note": "a\tb"]]]))
            #expect(tab.status == 201, "a tab is allowed in a field value (RFC 9110 §5.5)")
            for method in ["GËT", "GE T", "GET\r\n", ""] {
                app.expectProblem(
                    try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(
                        RouteFixture.unreachable, ["request": ["url": RouteFixture.unreachable, "method": method]])),
                    400, "invalid_request", fields: ["request.method"])
            }
            let token = try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(
                RouteFixture.unreachable, ["request": ["url": RouteFixture.unreachable, "method": "M-SEARCH"]]))
            #expect(token.status == 201, "any RFC 9110 token is a method")
        }
    }

    /// Every byte of a job's URL and headers is stored with the job, each of its events and its
    /// webhooks, and read again by every event stream: both are bounded at submission.
    @Test func urlsAndHeadersHaveDocumentedSizeLimits() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let base = "http://127.0.0.1:9/"
            let long = base + String(repeating: "a", count: 8193 - base.utf8.count)
            let fits = base + String(repeating: "a", count: 8192 - base.utf8.count)
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(long)),
                400, "invalid_request", fields: ["request.url"])
            // Counted in bytes: 4,096 two-byte characters are 8,192 bytes and more.
            let wide = base + String(repeating: "é", count: 4096)
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(wide)),
                400, "invalid_request", fields: ["request.url"])
            #expect(try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(fits)).status == 201)
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(
                    RouteFixture.unreachable, ["callback": ["url": long]])),
                400, "invalid_request", fields: ["callback.url"])
            app.expectProblem(
                try await app.send(.post, "/v1/webhooks/endpoints", key: tenant.key, json: ["url": long, "events": ["job.succeeded"]]),
                400, "invalid_request", fields: ["url"])
            app.expectProblem(
                try await app.send(.post, "/v1/sessions", key: tenant.key, json: [
                    "kind": "default", "configuration": ["proxy": "http://proxy.example:3128/" + String(repeating: "p", count: 8192)],
                ]), 400, "invalid_request", fields: ["configuration.proxy"])

            // Nine values of 8,000 bytes: each fits, together they pass 64 KiB.
            let many = Dictionary(uniqueKeysWithValues: (0..<9).map { ("X-Part-\($0)", String(repeating: "v", count: 8000)) })
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(
                    RouteFixture.unreachable, ["request": ["url": RouteFixture.unreachable, "headers": many]])),
                400, "invalid_request", fields: ["request.headers"])
            app.expectProblem(
                try await app.send(.post, "/v1/sessions", key: tenant.key, json: [
                    "kind": "default", "configuration": ["additional_headers": many],
                ]), 400, "invalid_request", fields: ["configuration.additional_headers"])
            let eight = Dictionary(uniqueKeysWithValues: (0..<8).map { ("X-Part-\($0)", String(repeating: "v", count: 8000)) })
            #expect(try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(
                RouteFixture.unreachable, ["request": ["url": RouteFixture.unreachable, "headers": eight]])).status == 201)
        }
    }

    @Test func lengthsCountCodePointsAsTheDatabaseDoes() async throws {
        try await RouteFixture.with { app in
            // 150 characters of two code points each: 300 for PostgreSQL's length(name) <= 200.
            let name = String(repeating: "e\u{301}", count: 150)
            #expect(name.count == 150)
            app.expectProblem(
                try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": name]),
                400, "invalid_request", fields: ["name"])
            let fits = try await app.send(.post, "/v1/admin/tenants", key: app.adminKey, json: ["name": String(repeating: "e\u{301}", count: 100)])
            #expect(fits.status == 201)
        }
    }

    /// A field the operation does not have is refused by name, not ignored: a misspelt setting
    /// would otherwise silently not apply.
    @Test func unknownFieldsAreRefusedByName() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: RouteFixture.download(
                    RouteFixture.unreachable, ["timeout": ["idle": 5], "cookie_jar": "a=b"])),
                400, "invalid_request", fields: ["timeout", "cookie_jar"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs", key: tenant.key, json: ["kind": "download", "request": [
                    "url": RouteFixture.unreachable, "hedaers": ["X-A": "1"], "body": ["base64": "AA==", "gzip": true],
                ]]), 400, "invalid_request", fields: ["request.hedaers", "request.body.gzip"])
            app.expectProblem(
                try await app.send(.post, "/v1/jobs/batch", key: tenant.key, json: ["jobs": [
                    RouteFixture.download(), RouteFixture.download(RouteFixture.unreachable, ["retries": 3]),
                ]]), 400, "invalid_request", fields: ["jobs.1.retries"])
            app.expectProblem(
                try await app.send(.post, "/v1/sessions", key: tenant.key, json: [
                    "kind": "default", "configuration": ["idle_timeout": 5],
                ]), 400, "invalid_request", fields: ["configuration.idle_timeout"])
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).list("jobs").isEmpty, "nothing half-written")
            // Free-form maps stay free-form: any header name is a key of request.headers.
            let headers = try await app.send(.post, "/v1/jobs", key: tenant.key, json: ["kind": "download", "request": [
                "url": RouteFixture.unreachable, "headers": ["X-Anything": "1"],
            ]])
            #expect(headers.status == 201)
        }
    }

    /// A field given twice is refused by name. Before, the checks and the decoder kept different
    /// copies: a NUL in the first `request` passed the NUL check and failed in PostgreSQL (a 500), and
    /// a misspelt field in it was ignored.
    @Test func fieldsGivenTwiceAreRefusedByName() async throws {
        try await RouteFixture.with { app in
            let tenant = try await app.createTenant()
            let url = RouteFixture.unreachable
            let bodies: [(json: String, fields: Set<String>)] = [
                (#"{"kind":"download","request":{"url":"\#(url)/\u0000"},"request":{"url":"\#(url)"}}"#, ["request"]),
                (#"{"kind":"download","request":{"url":"\#(url)","zzz":1},"request":{"url":"\#(url)"}}"#, ["request"]),
                // The same key however it is escaped.
                (#"{"kind":"download","kind":"data","request":{"url":"\#(url)","m\u0065thod":"GET","method":"PUT"}}"#,
                 ["kind", "request.method"]),
                (#"{"kind":"download","request":{"url":"\#(url)","headers":{"X-A":"1","X-A":"2"}}}"#, ["request.headers.X-A"]),
                (#"{"jobs":[{"kind":"download","request":{"url":"\#(url)"}},{"kind":"download","kind":"download","request":{"url":"\#(url)"}}]}"#,
                 ["jobs.1.kind"]),
            ]
            for (index, body) in bodies.enumerated() {
                let path = body.json.hasPrefix(#"{"jobs""#) ? "/v1/jobs/batch" : "/v1/jobs"
                let reply = try await app.send(
                    .post, path, key: tenant.key, body: Data(body.json.utf8), headers: [.contentType: "application/json"])
                app.expectProblem(reply, 400, "invalid_request", fields: body.fields)
                #expect(reply.status == 400, "body \(index)")
            }
            #expect(try await app.send(.get, "/v1/jobs", key: tenant.key).list("jobs").isEmpty, "nothing half-written")
            // Keys that differ only in case are different fields (header names are compared later, as headers).
            let distinct = try await app.send(
                .post, "/v1/jobs", key: tenant.key, body: Data(#"{"kind":"download","request":{"url":"\#(url)","headers":{"X-A":"1","x-b":"2"}}}"#.utf8),
                headers: [.contentType: "application/json"])
            #expect(distinct.status == 201)
        }
    }
}
