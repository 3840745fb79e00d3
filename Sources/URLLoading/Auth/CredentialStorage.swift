/// Where credentials are kept per protection space, with a default credential per space (AU-01, AU-14).
///
/// Async because a storage may live in a database (the gateway backs one with PostgreSQL). Default
/// handling of a challenge asks `defaultCredential(for:)`; a `.permanent` credential that worked is
/// handed to `set(_:for:)` (AU-02). `.forSession` credentials never come here from a task: the session
/// that used them keeps them (AU-03).
public protocol CredentialStorage: AnyObject, Sendable {
    /// Every credential kept for the space.
    func credentials(for space: ProtectionSpace) async -> [Credential]
    /// The credential default handling uses for the space, if any.
    func defaultCredential(for space: ProtectionSpace) async -> Credential?
    /// Keeps `credential` for the space, replacing one for the same user (or the same token); the first
    /// credential of a space becomes its default. A `.none` credential is not kept.
    func set(_ credential: Credential, for space: ProtectionSpace) async
    /// Keeps `credential` for the space and makes it the default.
    func setDefaultCredential(_ credential: Credential, for space: ProtectionSpace) async
    /// Removes the space's credential for the same user (or the same token) as `credential`.
    func remove(_ credential: Credential, for space: ProtectionSpace) async
}

/// A credential storage in memory, with a hook through which `.permanent` credentials reach real
/// persistence (AU-01, AU-02).
///
/// The hook is called, in order, whenever a `.permanent` credential is set or removed; credentials of
/// other persistences live only here.
public final class InMemoryCredentialStorage: CredentialStorage {
    public enum PersistenceEvent: Sendable, Equatable {
        case stored(Credential, ProtectionSpace)
        case removed(Credential, ProtectionSpace)
    }

    public typealias PersistenceHook = @Sendable (PersistenceEvent) async -> Void

    /// The storage default configurations share (SES-02).
    public static let shared = InMemoryCredentialStorage()

    private struct Space {
        var credentials: [Credential] = []
        var defaultCredential: Credential?
    }

    private let spaces = Locked([ProtectionSpace: Space]())
    private let persistenceHook: PersistenceHook?

    public init(persistenceHook: PersistenceHook? = nil) {
        self.persistenceHook = persistenceHook
    }

    public func credentials(for space: ProtectionSpace) async -> [Credential] {
        spaces.withLock { $0[space]?.credentials ?? [] }
    }

    public func defaultCredential(for space: ProtectionSpace) async -> Credential? {
        spaces.withLock { $0[space]?.defaultCredential }
    }

    public func set(_ credential: Credential, for space: ProtectionSpace) async {
        await keep(credential, for: space, asDefault: false)
    }

    public func setDefaultCredential(_ credential: Credential, for space: ProtectionSpace) async {
        await keep(credential, for: space, asDefault: true)
    }

    /// Removes the space's credential for the same user (or token) as `credential`.
    public func remove(_ credential: Credential, for space: ProtectionSpace) async {
        let removed = spaces.withLock { spaces -> Credential? in
            guard var entry = spaces[space],
                  let index = entry.credentials.firstIndex(where: { Self.sameIdentity($0, credential) })
            else { return nil }
            let stored = entry.credentials.remove(at: index)
            if entry.defaultCredential == stored { entry.defaultCredential = nil }
            spaces[space] = entry
            return stored
        }
        if let removed, removed.persistence == .permanent { await persistenceHook?(.removed(removed, space)) }
    }

    private func keep(_ credential: Credential, for space: ProtectionSpace, asDefault: Bool) async {
        guard credential.persistence != .none else { return }
        spaces.withLock { spaces in
            var entry = spaces[space] ?? Space()
            entry.credentials.removeAll { Self.sameIdentity($0, credential) }
            entry.credentials.append(credential)
            if asDefault || entry.defaultCredential == nil || Self.sameIdentity(entry.defaultCredential!, credential) {
                entry.defaultCredential = credential
            }
            spaces[space] = entry
        }
        if credential.persistence == .permanent { await persistenceHook?(.stored(credential, space)) }
    }

    /// One credential per user (or per token, identity, trust) and space, as a keychain keeps them.
    private static func sameIdentity(_ a: Credential, _ b: Credential) -> Bool {
        if let user = a.user { return user == b.user }
        return a.kind == b.kind
    }
}
