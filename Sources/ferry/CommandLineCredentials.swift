import Foundation
import URLLoading

/// `-u user:password` as the session's credential storage: default handling answers a Basic or a
/// Digest challenge, whichever the server sent (curl's --anyauth), with it (AU-14, AU-22).
///
/// Only for the hosts the command names, as curl sends -u credentials to the original host only: a
/// redirect elsewhere gets no password. Proxies are never answered (their credentials go in -x). Nothing
/// is ever stored: a rejected password is not tried again, and the 401 fails the transfer.
final class CommandLineCredentials: CredentialStorage {
    private let credential: Credential
    /// "host:port" of every URL of the command.
    private let origins: Set<String>

    init(credential: Credential, urls: [URL]) {
        self.credential = credential
        self.origins = Set(urls.compactMap { url in
            guard let host = url.host?.lowercased() else { return nil }
            return "\(host):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
        })
    }

    /// Parses `user:password` (the password after the first colon, so it may hold colons itself). The
    /// error never repeats the argument: it holds a password.
    static func parse(_ argument: String) throws(UsageError) -> Credential {
        guard let colon = argument.firstIndex(of: ":") else {
            throw UsageError("-u needs user:password (ferry does not prompt for a password)")
        }
        let user = String(argument[..<colon])
        guard !user.isEmpty else { throw UsageError("-u needs user:password with a user name before the colon") }
        return Credential(user: user, password: String(argument[argument.index(after: colon)...]), persistence: .none)
    }

    func credentials(for space: ProtectionSpace) async -> [Credential] {
        await defaultCredential(for: space).map { [$0] } ?? []
    }

    func defaultCredential(for space: ProtectionSpace) async -> Credential? {
        guard !space.isProxy, [.httpBasic, .httpDigest].contains(space.authenticationMethod),
              origins.contains("\(space.host):\(space.port)")
        else { return nil }
        return credential
    }

    func set(_ credential: Credential, for space: ProtectionSpace) async {}
    func setDefaultCredential(_ credential: Credential, for space: ProtectionSpace) async {}
    func remove(_ credential: Credential, for space: ProtectionSpace) async {}
}
