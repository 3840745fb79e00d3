import Foundation

extension UUID {
    /// How the API writes ids: lower case, as RFC 9562 recommends and PostgreSQL prints them. Ids
    /// are read in either case.
    package var lowercasedString: String { uuidString.lowercased() }
}
