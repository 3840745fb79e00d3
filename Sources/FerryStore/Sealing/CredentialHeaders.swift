import FerryModel

/// Which request headers carry credentials, and so are sealed at rest (in jobs, sessions, resume
/// data): exactly those whose values every view shows as `<redacted>` (`JobView.sensitiveHeaders`:
/// Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key). One list, so that a header
/// the API hides is never left readable in the database, and one it shows never needs a key to show.
package enum CredentialHeaders {
    /// What a sealed header's `value` holds in the stored document, and what views read.
    package static let placeholder = "<redacted>"

    package static func carriesCredentials(_ name: String) -> Bool {
        JobView.sensitiveHeaders.contains(name.lowercased())
    }
}
