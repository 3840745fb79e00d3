import Foundation
import Synchronization
import Testing
import URLLoading

/// The OpenAPI document of a ferryd under test, and the check of one reply against it: the route
/// (method and templated path) must be documented, the status documented for that route, required
/// response headers present, the Content-Type one the route documents, and a JSON body valid against
/// the documented schema. Bodies of other media types (a job's content) are not inspected.
struct OpenAPIContract: Sendable {
    let document: JSONValue

    /// The operations a path item may have.
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    init(document: JSONValue) {
        self.document = document
    }

    /// The document each ferryd serves, fetched once per base URL from its `GET /openapi.json`.
    private static let documents = Mutex<[String: OpenAPIContract]>([:])

    static func of(baseURL: String, session: Session) async throws -> OpenAPIContract {
        if let known = documents.withLock({ $0[baseURL] }) { return known }
        guard let url = URL(string: baseURL + "/openapi.json") else { throw TransferError(.invalidRequest, "bad base URL \(baseURL)") }
        let (data, response) = try await session.data(for: TransferRequest(url: url, method: "GET", body: nil))
        guard response.statusCode == 200 else {
            throw TransferError(.badServerResponse, "GET /openapi.json answered \(response.statusCode ?? 0)")
        }
        let contract = OpenAPIContract(document: try JSONValue.parse(data))
        documents.withLock { $0[baseURL] = contract }
        return contract
    }

    /// Checks a reply of the ferryd at `baseURL`, recording an `Issue` for everything the document
    /// does not allow (and one if the document cannot be had).
    static func check(
        baseURL: String, session: Session, method: String, path: String, status: Int, headers: HTTPHeaders, body: Data,
        sourceLocation: SourceLocation
    ) async {
        let contract: OpenAPIContract
        do {
            contract = try await of(baseURL: baseURL, session: session)
        } catch {
            Issue.record("cannot load the OpenAPI document of \(baseURL) to check \(method) \(path): \(error)", sourceLocation: sourceLocation)
            return
        }
        for violation in contract.violations(method: method, path: path, status: status, headers: headers, body: body) {
            Issue.record("OpenAPI contract: \(method) \(path) → \(status): \(violation)", sourceLocation: sourceLocation)
        }
    }

    /// The documented path template that `path` (query and all) falls under, and its path item.
    /// Literal segments beat templated ones: `/a/b` before `/a/{x}`.
    func pathItem(for path: String) -> (template: String, item: JSONValue)? {
        let requested = Self.segments(String(path.prefix { $0 != "?" && $0 != "#" }))
        var best: (template: String, item: JSONValue, literals: Int)?
        for (template, item) in document["paths"]?.object ?? [:] {
            let pattern = Self.segments(template)
            guard pattern.count == requested.count else { continue }
            var literals = 0
            var matches = true
            for (expected, actual) in zip(pattern, requested) {
                if expected.hasPrefix("{") && expected.hasSuffix("}") {
                    if actual.isEmpty { matches = false }
                } else if expected == actual {
                    literals += 1
                } else {
                    matches = false
                }
                if !matches { break }
            }
            if matches, literals > best?.literals ?? -1 { best = (template, item, literals) }
        }
        return best.map { ($0.template, $0.item) }
    }

    static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    /// Everything wrong with this reply per the document; empty when it conforms.
    func violations(method: String, path: String, status: Int, headers: HTTPHeaders, body: Data) -> [String] {
        let validator = JSONSchemaValidator(root: document)
        func follow(_ value: JSONValue?) -> JSONValue? {
            guard let reference = value?["$ref"]?.string else { return value }
            return validator.resolve(reference)
        }
        let mediaType = headers["Content-Type"].map { String($0.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased() }

        if let (template, item) = pathItem(for: path), item[method.lowercased()] == nil {
            // A documented path with another method: 405, a problem, and Allow naming the documented methods.
            let documented = Self.methods.filter { item[$0] != nil }.map { $0.uppercased() }.sorted()
            guard status == 405 else { return ["\(method) \(template) is no documented operation, yet it answered \(status), not 405"] }
            var found: [String] = []
            if headers["Allow"] != documented.joined(separator: ", ") {
                found.append("Allow is \(headers["Allow"] ?? "missing"), not the documented \(documented.joined(separator: ", "))")
            }
            guard mediaType == "application/problem+json", let problem = try? JSONValue.parse(body) else {
                return found + ["a 405 is not application/problem+json"]
            }
            return found + validator.errors(problem, against: .object(["$ref": .string("#/components/schemas/Problem")]))
        }
        guard let (template, item) = pathItem(for: path), let operation = item[method.lowercased()] else {
            // Not a route: the router's 404, as a problem.
            guard status == 404 else { return ["\(method) \(path) is no documented operation, yet it answered \(status)"] }
            guard mediaType == "application/problem+json", let problem = try? JSONValue.parse(body) else {
                return ["an unknown route's 404 is not application/problem+json"]
            }
            return validator.errors(problem, against: .object(["$ref": .string("#/components/schemas/Problem")]))
        }
        let operationName = "\(method.uppercased()) \(template)"
        let responses = operation["responses"]?.object ?? [:]
        guard let response = follow(responses[String(status)]) else {
            return ["\(status) is not a documented status of \(operationName) (documented: \(responses.keys.sorted().joined(separator: ", ")))"]
        }

        var found: [String] = []
        for (name, header) in response["headers"]?.object ?? [:] where follow(header)?["required"] == .bool(true) {
            if headers[name] == nil { found.append("lacks the header \(name), which \(operationName) documents for \(status)") }
        }

        guard let content = response["content"]?.object, !content.isEmpty else {
            if !body.isEmpty { found.append("\(operationName) documents no body for \(status), but one of \(body.count) bytes came") }
            return found
        }
        guard let mediaType else {
            found.append("no Content-Type; \(operationName) documents \(content.keys.sorted()) for \(status)")
            return found
        }
        let key = content[mediaType] != nil ? mediaType
            : content["\(mediaType.prefix { $0 != "/" })/*"] != nil ? "\(mediaType.prefix { $0 != "/" })/*"
            : content["*/*"] != nil ? "*/*" : nil
        guard let key else {
            found.append("Content-Type \(mediaType) is not documented for \(status) of \(operationName) (documented: \(content.keys.sorted()))")
            return found
        }
        guard key == "application/json" || key.hasSuffix("+json") else { return found }
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            found.append("the \(key) body is not JSON: \(String(decoding: body.prefix(200), as: UTF8.self))")
            return found
        }
        if let schema = content[key]?["schema"] {
            found += validator.errors(value, against: schema)
        }
        if key == "application/problem+json", let problemStatus = value["status"], problemStatus != .integer(Int64(status)) {
            found.append("the problem's status \(problemStatus.text) is not the response's \(status)")
        }
        return found
    }
}
