import Foundation

/// Checks a JSON value against a JSON Schema (2020-12, OpenAPI 3.1's dialect), with the keywords
/// Ferry's OpenAPI document uses. A keyword it does not know is reported as an error rather than
/// skipped, so the document cannot rely on a check that is not made.
///
/// Besides JSON Schema's keywords it checks one of Ferry's own, `x-ferry-absent`: the properties a
/// view of a schema leaves out (a tenant's job has no `tenant`, a list of keys no `api_key`). JSON
/// Schema says it with `not: {required: [...]}`, which swift-openapi-generator cannot read, so the
/// document says it this way and other tools ignore it as an annotation.
struct JSONSchemaValidator {
    /// The document `$ref`s point into (`#/components/schemas/Job`).
    let root: JSONValue

    /// The keywords `errors(_:against:)` checks.
    static let checked: Set<String> = [
        "$ref", "type", "enum", "const", "properties", "required", "additionalProperties", "minProperties", "maxProperties",
        "items", "minItems", "maxItems", "minLength", "maxLength", "pattern", "format", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "allOf", "anyOf", "oneOf", "not", absentKeyword,
    ]

    /// Ferry's keyword: the properties that must not be there.
    static let absentKeyword = "x-ferry-absent"

    /// The formats `formatProblem` checks.
    static let formats: Set<String> = ["uuid", "date-time", "uri"]

    /// Keywords that only describe: nothing to check.
    static let annotations: Set<String> = [
        "description", "title", "default", "examples", "example", "deprecated", "readOnly", "writeOnly",
        "contentMediaType", "contentEncoding", "$comment",
    ]

    /// What is wrong with `value`, each as "path: problem"; empty when it conforms.
    func errors(_ value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        switch schema {
        case .bool(true): return []
        case .bool(false): return ["\(path): no value is allowed here"]
        case .object(let keywords): return errors(value, keywords: keywords, at: path)
        default: return ["\(path): the schema is not an object or a boolean: \(schema.brief)"]
        }
    }

    private func errors(_ value: JSONValue, keywords: [String: JSONValue], at path: String) -> [String] {
        var found: [String] = []
        func fail(_ message: String) { found.append("\(path): \(message)") }

        for (keyword, argument) in keywords.sorted(by: { $0.key < $1.key }) {
            switch keyword {
            case "$ref":
                guard let reference = argument.string, let target = resolve(reference) else {
                    fail("cannot resolve $ref \(argument.brief)")
                    continue
                }
                found += errors(value, against: target, at: path)
            case "type":
                let allowed = argument.array?.compactMap(\.string) ?? argument.string.map { [$0] } ?? []
                let actual = value.typeName
                if !allowed.contains(actual) && !(actual == "integer" && allowed.contains("number")) {
                    fail("is \(actual) (\(value.brief)), expected \(allowed.joined(separator: " or "))")
                }
            case "enum":
                if !(argument.array ?? []).contains(value) {
                    fail("\(value.brief) is not one of \((argument.array ?? []).map(\.brief).joined(separator: ", "))")
                }
            case "const":
                if value != argument { fail("\(value.brief) is not \(argument.brief)") }
            case "properties":
                guard let members = value.object, let properties = argument.object else { continue }
                for (name, subschema) in properties.sorted(by: { $0.key < $1.key }) {
                    if let member = members[name] { found += errors(member, against: subschema, at: "\(path).\(name)") }
                }
            case "required":
                guard let members = value.object else { continue }
                for name in argument.array?.compactMap(\.string) ?? [] where members[name] == nil {
                    fail("lacks the required property '\(name)'")
                }
            case "additionalProperties":
                guard let members = value.object else { continue }
                let declared = Set(keywords["properties"]?.object?.keys.map { $0 } ?? [])
                for (name, member) in members.sorted(by: { $0.key < $1.key }) where !declared.contains(name) {
                    if argument == .bool(false) {
                        fail("has the undocumented property '\(name)' (\(member.brief))")
                    } else {
                        found += errors(member, against: argument, at: "\(path).\(name)")
                    }
                }
            case "minProperties", "maxProperties":
                guard let members = value.object, let bound = argument.double else { continue }
                if keyword == "minProperties" ? Double(members.count) < bound : Double(members.count) > bound {
                    fail("has \(members.count) properties, \(keyword) is \(Int(bound))")
                }
            case "items":
                guard let elements = value.array else { continue }
                for (index, element) in elements.enumerated() { found += errors(element, against: argument, at: "\(path)[\(index)]") }
            case "minItems", "maxItems":
                guard let elements = value.array, let bound = argument.double else { continue }
                if keyword == "minItems" ? Double(elements.count) < bound : Double(elements.count) > bound {
                    fail("has \(elements.count) items, \(keyword) is \(Int(bound))")
                }
            case "minLength", "maxLength":
                guard let text = value.string, let bound = argument.double else { continue }
                if keyword == "minLength" ? Double(text.count) < bound : Double(text.count) > bound {
                    fail("has \(text.count) characters, \(keyword) is \(Int(bound))")
                }
            case "pattern":
                guard let text = value.string, let pattern = argument.string else { continue }
                if text.range(of: pattern, options: .regularExpression) == nil { fail("\(value.brief) does not match \(pattern)") }
            case "format":
                guard let text = value.string, let format = argument.string else { continue }
                if let problem = Self.formatProblem(text, format) { fail("\(value.brief) \(problem)") }
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
                guard let number = value.double, let bound = argument.double else { continue }
                let holds = switch keyword {
                case "minimum": number >= bound
                case "maximum": number <= bound
                case "exclusiveMinimum": number > bound
                default: number < bound
                }
                if !holds { fail("\(value.brief) breaks \(keyword) \(argument.brief)") }
            case "allOf":
                for subschema in argument.array ?? [] { found += errors(value, against: subschema, at: path) }
            case "anyOf":
                let branches = (argument.array ?? []).map { errors(value, against: $0, at: path) }
                if !branches.contains(where: \.isEmpty) {
                    fail("matches none of anyOf: \(branches.map { $0.joined(separator: "; ") }.joined(separator: " | "))")
                }
            case "oneOf":
                let branches = (argument.array ?? []).map { errors(value, against: $0, at: path) }
                let matching = branches.filter(\.isEmpty).count
                if matching != 1 {
                    fail("matches \(matching) of oneOf, not exactly one: \(branches.map { $0.joined(separator: "; ") }.joined(separator: " | "))")
                }
            case "not":
                if errors(value, against: argument, at: path).isEmpty { fail("matches \(argument.text), which it must not") }
            case Self.absentKeyword:
                guard let members = value.object else { continue }
                for name in argument.array?.compactMap(\.string) ?? [] where members[name] != nil {
                    fail("has '\(name)', which this view leaves out")
                }
            default:
                if !Self.annotations.contains(keyword) { fail("the schema keyword '\(keyword)' is not supported by this validator") }
            }
        }
        return found
    }

    /// Keywords and formats in `schema` and the schemas inside it that this validator does not check.
    static func unsupported(in schema: JSONValue, at path: String) -> [String] {
        guard let keywords = schema.object else { return [] }
        var found: [String] = []
        for (keyword, argument) in keywords {
            if !checked.contains(keyword) && !annotations.contains(keyword) { found.append("\(path): keyword '\(keyword)'") }
            switch keyword {
            case "properties":
                for (name, subschema) in argument.object ?? [:] { found += unsupported(in: subschema, at: "\(path).properties.\(name)") }
            case "items", "additionalProperties", "not":
                found += unsupported(in: argument, at: "\(path).\(keyword)")
            case "allOf", "anyOf", "oneOf":
                for (index, subschema) in (argument.array ?? []).enumerated() { found += unsupported(in: subschema, at: "\(path).\(keyword)[\(index)]") }
            case "format":
                if let format = argument.string, !formats.contains(format) { found.append("\(path): format '\(format)'") }
            default:
                break
            }
        }
        return found
    }

    /// `#/a/b/c` in `root` (JSON Pointer, RFC 6901).
    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var node = root
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let members = node.object, let next = members[key] {
                node = next
            } else if let elements = node.array, let index = Int(key), elements.indices.contains(index) {
                node = elements[index]
            } else {
                return nil
            }
        }
        return node
    }

    static let rfc3339 = #"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$"#
    static let uuid = #"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"#

    /// Why `text` is not of `format`; nil when it is. An unknown format is a problem too.
    static func formatProblem(_ text: String, _ format: String) -> String? {
        switch format {
        case "uuid":
            text.range(of: uuid, options: .regularExpression) == nil ? "is not a UUID" : nil
        case "date-time":
            text.range(of: rfc3339, options: .regularExpression) == nil ? "is not an RFC 3339 date-time" : nil
        case "uri":
            URL(string: text)?.scheme == nil ? "is not an absolute URI" : nil
        default:
            "has the format '\(format)', which this validator does not check"
        }
    }
}
