import Foundation
import Testing
@testable import URLLoading
import URLLoadingTestSupport

/// Records what a storage hands to its persistence hook.
final class PersistenceLog: Sendable {
    let events = Locked<[InMemoryCredentialStorage.PersistenceEvent]>([])

    var hook: InMemoryCredentialStorage.PersistenceHook {
        { [events] event in events.withLock { $0.append(event) } }
    }

    var all: [InMemoryCredentialStorage.PersistenceEvent] { events.withLock { $0 } }
}

@Suite("Credential storage", .timeLimit(.minutes(2)))
struct CredentialStorageTests {
    private let space = ProtectionSpace(host: "Files.Example", port: 443, scheme: "https", realm: "r", authenticationMethod: .httpBasic)

    @Test("credentials per space, a default per space, set and remove; none is not kept (AU-01, AU-02)")
    func inMemoryStorage() async {
        let log = PersistenceLog()
        let storage = InMemoryCredentialStorage(persistenceHook: log.hook)
        let alice = Credential(user: "alice", password: "a", persistence: .forSession)
        let bob = Credential(user: "bob", password: "b", persistence: .forSession)
        await storage.set(alice, for: space)
        await storage.set(bob, for: space)
        #expect(await storage.credentials(for: space) == [alice, bob])
        // The first credential of a space is its default until another is made the default.
        #expect(await storage.defaultCredential(for: space) == alice)
        await storage.setDefaultCredential(bob, for: space)
        #expect(await storage.defaultCredential(for: space) == bob)
        // Spaces are per host, port, scheme, realm and method; host names compare case-insensitively.
        let sameSpace = ProtectionSpace(host: "files.example", port: 443, scheme: "HTTPS", realm: "r", authenticationMethod: .httpBasic)
        #expect(await storage.defaultCredential(for: sameSpace) == bob)
        var otherRealm = space
        otherRealm.realm = "other"
        #expect(await storage.credentials(for: otherRealm).isEmpty)

        // A new password for the same user replaces the old one.
        let newAlice = Credential(user: "alice", password: "a2", persistence: .forSession)
        await storage.set(newAlice, for: space)
        #expect(await storage.credentials(for: space) == [bob, newAlice])
        await storage.remove(bob, for: space)
        #expect(await storage.credentials(for: space) == [newAlice])
        #expect(await storage.defaultCredential(for: space) == nil)

        await storage.set(Credential(user: "carol", password: "c", persistence: .none), for: space)
        #expect(await storage.credentials(for: space) == [newAlice])
        #expect(log.all.isEmpty)
    }

    @Test("permanent credentials reach the persistence hook when set and removed (AU-02)")
    func persistenceHook() async {
        let log = PersistenceLog()
        let storage = InMemoryCredentialStorage(persistenceHook: log.hook)
        let permanent = Credential(user: "dave", password: "d", persistence: .permanent)
        await storage.set(permanent, for: space)
        await storage.set(Credential(user: "erin", password: "e", persistence: .forSession), for: space)
        await storage.remove(permanent, for: space)
        #expect(log.all == [.stored(permanent, space), .removed(permanent, space)])
    }

    @Test("default configurations share one storage; each ephemeral configuration has its own (SES-02, SES-03)")
    func configurationStorages() {
        #expect(SessionConfiguration.default.credentialStorage === InMemoryCredentialStorage.shared)
        #expect(SessionConfiguration.default == SessionConfiguration.default)
        let ephemeral = SessionConfiguration.ephemeral
        #expect(ephemeral.credentialStorage !== InMemoryCredentialStorage.shared)
        #expect(ephemeral.credentialStorage !== SessionConfiguration.ephemeral.credentialStorage)
        #expect(ephemeral != SessionConfiguration.ephemeral)
        var zero = SessionConfiguration.default
        zero.maximumAuthenticationFailures = 0
        #expect(throws: ConfigurationError.self) { _ = try Session(configuration: zero) }
    }

    @Test("a for-session credential that worked is kept by its session only (AU-03, AU-14)")
    func forSessionCredential() async throws {
        try await Fixture.withOrigin { origin in
            let storage = InMemoryCredentialStorage()
            let credential = Credential(user: AuthRoutes.user, password: AuthRoutes.password, persistence: .forSession)
            // The first task's delegate supplies it; later ones only ask for default handling.
            let first = ChallengeDelegate { challenge in
                challenge.proposedCredential == nil ? .useCredential(credential) : .performDefaultHandling
            }
            let session = try Fixture.session({ $0.credentialStorage = storage }, delegate: first)
            let url = origin.url("/protected/p")
            #expect(try await session.data(for: Fixture.request(url)).1.statusCode == 200)
            #expect(try await session.data(for: Fixture.request(url)).1.statusCode == 200)
            #expect(first.challenges.map(\.proposedCredential) == [nil, credential])

            let other = try Fixture.session({ $0.credentialStorage = storage }, delegate: ChallengeDelegate { _ in .performDefaultHandling })
            #expect(try await other.data(for: Fixture.request(url)).1.statusCode == 401)
            #expect(await storage.credentials(for: Credentials.space(origin)).isEmpty)
        }
    }

    @Test("a credential with persistence none is used for its request only (AU-02)")
    func noPersistence() async throws {
        try await Fixture.withOrigin { origin in
            // The first question gets the credential; the second task must rely on default handling.
            let questions = Locked(0)
            let delegate = ChallengeDelegate { _ in
                let first = questions.withLock { count in
                    count += 1
                    return count == 1
                }
                return first ? .useCredential(Credentials.good) : .performDefaultHandling
            }
            let session = try Credentials.session(delegate: delegate)
            let url = origin.url("/protected/n")
            #expect(try await session.data(for: Fixture.request(url)).1.statusCode == 200)
            #expect(try await session.data(for: Fixture.request(url)).1.statusCode == 401)
            #expect(delegate.challenges.map(\.proposedCredential) == [nil, nil])
        }
    }

    @Test("a permanent credential that worked goes to the storage and its hook; other sessions use it (AU-02, AU-14)")
    func permanentCredential() async throws {
        try await Fixture.withOrigin { origin in
            let log = PersistenceLog()
            let storage = InMemoryCredentialStorage(persistenceHook: log.hook)
            let credential = Credential(user: AuthRoutes.user, password: AuthRoutes.password, persistence: .permanent)
            let session = try Fixture.session({ $0.credentialStorage = storage }, delegate: ChallengeDelegate(always: credential))
            let url = origin.url("/protected/p")
            #expect(try await session.data(for: Fixture.request(url)).1.statusCode == 200)
            try await Fixture.eventually("the persistence hook") { !log.all.isEmpty }
            #expect(log.all == [.stored(credential, Credentials.space(origin))])

            let other = try Fixture.session { $0.credentialStorage = storage }
            #expect(try await other.data(for: Fixture.request(url)).1.statusCode == 200)
        }
    }

    @Test("an ephemeral session never hands a credential to a persistence hook, even a permanent one (SES-03)")
    func ephemeralNeverPersists() async throws {
        try await Fixture.withOrigin { origin in
            let log = PersistenceLog()
            var configuration = SessionConfiguration.ephemeral
            configuration.credentialStorage = InMemoryCredentialStorage(persistenceHook: log.hook)
            let credential = Credential(user: AuthRoutes.user, password: AuthRoutes.password, persistence: .permanent)
            let delegate = ChallengeDelegate { challenge in
                challenge.proposedCredential == nil ? .useCredential(credential) : .performDefaultHandling
            }
            let session = try Session(configuration: configuration, delegate: delegate)
            let url = origin.url("/protected/e")
            #expect(try await session.data(for: Fixture.request(url)).1.statusCode == 200)
            // Kept for the session itself, in memory.
            #expect(try await session.data(for: Fixture.request(url)).1.statusCode == 200)
            #expect(delegate.challenges.map(\.proposedCredential) == [nil, credential])
            #expect(log.all.isEmpty)
            #expect(await configuration.credentialStorage.credentials(for: Credentials.space(origin)).isEmpty)
        }
    }
}
