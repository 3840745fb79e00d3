import URLLoading

/// The engine's cache policies (CA-05..CA-09) as the API names them in `cache_policy`.
extension RequestCachePolicy {
    package static let apiNames: [(name: String, policy: RequestCachePolicy)] = [
        ("use_protocol", .useProtocolCachePolicy),
        ("reload_ignoring_cache", .reloadIgnoringLocalCacheData),
        ("return_cache_else_load", .returnCacheDataElseLoad),
        ("return_cache_dont_load", .returnCacheDataDontLoad),
    ]

    package init?(apiName: String) {
        guard let match = Self.apiNames.first(where: { $0.name == apiName }) else { return nil }
        self = match.policy
    }

    /// The problem message for a name that is none of them.
    package static var apiNameProblem: String {
        "must be one of " + apiNames.map(\.name).joined(separator: ", ")
    }
}
