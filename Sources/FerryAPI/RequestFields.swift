import FerryModel
import Foundation

/// Refuses the fields a request body has and its operation's schema in `OpenAPIDocument` does not
/// name: a misspelt setting (`"timeout"` for `"timeouts"`) is an error naming it, not a setting
/// silently ignored.
///
/// An object schema with `properties` is closed unless it says otherwise with `additionalProperties`
/// (free-form maps such as `headers` do); a `oneOf` or `anyOf` allows the fields of any of its
/// branches, and the branch-specific checks are left to the decoding that follows.
enum RequestFields {
    /// What a schema says of the fields of a value: an object's named properties, whether others are
    /// refused, the schema of the others (a map's values) and of an array's items.
    final class Node: Sendable {
        let properties: [String: Node]
        let closed: Bool
        let additional: Node?
        let items: Node?
        /// `"type": "integer"`.
        let integer: Bool

        init(properties: [String: Node] = [:], closed: Bool = false, additional: Node? = nil, items: Node? = nil, integer: Bool = false) {
            self.properties = properties
            self.closed = closed
            self.additional = additional
            self.items = items
            self.integer = integer
        }

        /// From a schema whose `$ref`s are resolved.
        convenience init(_ schema: Any) {
            let schema = schema as? [String: Any] ?? [:]
            var properties = (schema["properties"] as? [String: Any]) ?? [:]
            var closed = (schema["properties"] != nil && schema["additionalProperties"] == nil)
                || schema["additionalProperties"] as? Bool == false
            let branches = ["oneOf", "anyOf", "allOf"].flatMap { (schema[$0] as? [Any]) ?? [] }
            for case let branch as [String: Any] in branches where (branch["type"] as? String ?? "object") == "object" {
                if let more = branch["properties"] as? [String: Any] {
                    properties.merge(more) { first, _ in first }
                    if branch["additionalProperties"] == nil { closed = true }
                }
            }
            if schema["additionalProperties"] as? Bool == true { closed = false }
            self.init(
                properties: properties.mapValues { Node($0) }, closed: closed,
                additional: (schema["additionalProperties"] as? [String: Any]).map { Node($0) },
                items: schema["items"].map { Node($0) }, integer: schema["type"] as? String == "integer")
        }
    }

    /// The request body schema of each operation, by "METHOD /path/{template}".
    private static let bodies: [String: Node] = {
        guard let document = try? JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any],
              let paths = document["paths"] as? [String: Any]
        else { preconditionFailure("OpenAPIDocument.json is not a JSON object with paths") }
        var bodies: [String: Node] = [:]
        for (path, item) in paths {
            for (method, operation) in (item as? [String: Any]) ?? [:] {
                let content = ((operation as? [String: Any])?["requestBody"] as? [String: Any])?["content"] as? [String: Any]
                if let schema = (content?["application/json"] as? [String: Any])?["schema"] {
                    bodies["\(method.uppercased()) \(path)"] = Node(resolve(schema, in: document))
                }
            }
        }
        return bodies
    }()

    /// The parsed body and its operation's schema; nil without a documented body or valid JSON.
    private static func body(_ bytes: [UInt8], _ operation: String) -> (Any, Node)? {
        guard let schema = bodies[operation],
              let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        else { return nil }
        return (value, schema)
    }

    /// The field errors for every field of `document` (a body as `JSONSerialization` reads it) that
    /// the schema of `operation` ("POST /v1/jobs") does not name; empty when the operation has no
    /// documented body.
    static func unknownFields(in document: Any, operation: String) -> [FieldError] {
        guard let schema = bodies[operation] else { return [] }
        var unknown: [String] = []
        check(document, against: schema, path: [], unknown: &unknown)
        return unknown.map { FieldError(field: $0, message: "is not a field of this request; see the API's documentation") }
    }

    /// The fields where the schema of `operation` wants an integer and `bytes` has a number with a
    /// fraction or beyond 64 bits: Foundation's decoder reports those without saying where.
    static func nonIntegers(in bytes: [UInt8], operation: String) -> [FieldError] {
        guard let (value, schema) = body(bytes, operation) else { return [] }
        var found: [String] = []
        findNonIntegers(value, against: schema, path: [], found: &found)
        return found.map { FieldError(field: $0.isEmpty ? "body" : $0, message: "must be an integer") }
    }

    private static func findNonIntegers(_ value: Any, against schema: Node, path: [String], found: inout [String]) {
        if let object = value as? [String: Any] {
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                guard let property = schema.properties[key] ?? schema.additional else { continue }
                findNonIntegers(member, against: property, path: path + [key], found: &found)
            }
        } else if let array = value as? [Any], let items = schema.items {
            for (index, element) in array.enumerated() { findNonIntegers(element, against: items, path: path + [String(index)], found: &found) }
        } else if schema.integer, let number = value as? NSNumber, !(value is Bool) {
            let double = number.doubleValue
            if double.rounded() != double || abs(double) >= 9.2e18 { found.append(path.joined(separator: ".")) }
        }
    }

    private static func check(_ value: Any, against schema: Node, path: [String], unknown: inout [String]) {
        if let object = value as? [String: Any] {
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                if let property = schema.properties[key] {
                    check(member, against: property, path: path + [key], unknown: &unknown)
                } else if let additional = schema.additional {
                    check(member, against: additional, path: path + [key], unknown: &unknown)
                } else if schema.closed {
                    unknown.append((path + [key]).joined(separator: "."))
                }
            }
        } else if let array = value as? [Any], let items = schema.items {
            for (index, element) in array.enumerated() { check(element, against: items, path: path + [String(index)], unknown: &unknown) }
        }
    }

    /// The schema with every `$ref` (to `#/components/...`) replaced by what it names.
    private static func resolve(_ schema: Any, in document: [String: Any], depth: Int = 0) -> Any {
        guard depth < 32 else { return [String: Any]() }
        if let array = schema as? [Any] { return array.map { resolve($0, in: document, depth: depth + 1) } }
        guard var object = schema as? [String: Any] else { return schema }
        if let reference = object["$ref"] as? String {
            var target: Any? = document
            for part in reference.dropFirst(2).split(separator: "/") { target = (target as? [String: Any])?[String(part)] }
            return resolve(target ?? [String: Any](), in: document, depth: depth + 1)
        }
        for (key, value) in object where key != "enum" && key != "example" && key != "examples" && key != "required" {
            object[key] = resolve(value, in: document, depth: depth + 1)
        }
        return object
    }
}
