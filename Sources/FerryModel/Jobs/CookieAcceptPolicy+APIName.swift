import URLLoading

/// The engine's cookie accept policies (CK-05, SES-22) as the API names them in a session's
/// `cookie_accept_policy`.
extension CookieAcceptPolicy {
    package static let apiNames: [(name: String, policy: CookieAcceptPolicy)] = [
        ("always", .always),
        ("never", .never),
        ("only_from_main_document_domain", .onlyFromMainDocumentDomain),
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
