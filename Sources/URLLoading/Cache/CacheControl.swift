/// The directives of a `Cache-Control` header (RFC 9111 §5.2), lower-case names; a directive without
/// an argument maps to "". `Pragma: no-cache` counts as `no-cache` when there is no Cache-Control.
struct CacheControl: Equatable {
    private var directives: [String: String] = [:]

    init(_ headers: HTTPHeaders) {
        let values = headers.values(for: "Cache-Control")
        for value in values {
            for directive in FieldValueList.members(value) {
                let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
                guard !name.isEmpty else { continue }
                var argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                if argument.hasPrefix("\""), argument.hasSuffix("\""), argument.count >= 2 {
                    argument = String(argument.dropFirst().dropLast())
                }
                // The first occurrence wins, as a conflicting duplicate is invalid anyway.
                if directives[name] == nil { directives[name] = argument }
            }
        }
        if values.isEmpty, headers.values(for: "Pragma").contains(where: { $0.lowercased().contains("no-cache") }) {
            directives["no-cache"] = ""
        }
    }

    func has(_ name: String) -> Bool { directives[name] != nil }

    /// A delta-seconds argument (`max-age=60`); nil when absent or not a number.
    func seconds(_ name: String) -> Int? {
        guard let argument = directives[name], !argument.isEmpty, argument.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        return Int(argument) ?? Int.max
    }
}
