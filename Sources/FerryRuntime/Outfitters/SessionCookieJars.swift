import FerryModel
import FerryStore
import Foundation
import URLLoading

/// Gives each gateway session's engine sessions the session's cookie jar (CK-02, CK-03, CK-09).
///
/// - A non-ephemeral session's jar is kept in PostgreSQL (`SessionCookieStore`): before each job it
///   is brought up to date from there (so a cookie set by a job on another ferryd is sent), and after
///   each job what it changed is written there, before the job's end is recorded (so the session's
///   next job sees it wherever it runs).
/// - An ephemeral session's jar lives only in this process's memory and is never written (SES-03).
/// - Jobs outside a session keep no cookies: their engine sessions stay as `JobEngine` makes them,
///   with cookies off, since nothing would tie one such job's cookies to another's.
///
/// Every engine session of one gateway session on this ferryd shares its jar (a job that follows no
/// redirects runs in an engine session of its own, yet must send the session's login cookie).
public final class SessionCookieJars: EngineSessionOutfitter {
    private struct PersistentJar: Sendable {
        let jar: SessionCookieJar
        let flush = SerialFlush()
    }

    private let store: SessionCookieStore
    /// Several times `JobEngine.capacity`: a jar is let go well after its engine sessions were.
    private let persistent = OwnerRegistry<UUID, PersistentJar>(capacity: JobEngine.capacity * 4) { !$0.jar.hasUnwrittenChanges }
    private let ephemeral = OwnerRegistry<UUID, InMemoryCookieStorage>(capacity: JobEngine.capacity * 4)

    public init(store: SessionCookieStore) {
        self.store = store
    }

    public func outfit(_ configuration: inout SessionConfiguration, for owner: EngineSessionOwner) {
        guard let session = owner.sessionID else { return }
        if owner.isEphemeral {
            configuration.httpCookieStorage = ephemeral.value(for: session) { InMemoryCookieStorage() }
        } else {
            configuration.httpCookieStorage = persistent.value(for: session) { PersistentJar(jar: SessionCookieJar()) }.jar
        }
        configuration.httpShouldSetCookies = true
    }

    public func prepare(for owner: EngineSessionOwner, stored: OwnerStoredState) async throws {
        guard let session = owner.sessionID, !owner.isEphemeral else { return }
        let jar = persistent.value(for: session) { PersistentJar(jar: SessionCookieJar()) }.jar
        // With none stored, merging none still drops cookies deleted or expired elsewhere.
        jar.merge(stored: stored.cookies ? try await store.cookies(session: session) : [])
    }

    public func settle(for owner: EngineSessionOwner) async throws {
        guard let session = owner.sessionID, !owner.isEphemeral, let entry = persistent.existing(session) else { return }
        let store = self.store
        try await entry.flush.run {
            let changes = entry.jar.takeChanges()
            guard !changes.isEmpty else { return }
            do {
                try await store.write(changes, session: session, tenant: owner.tenantID)
            } catch {
                entry.jar.restore(changes)
                throw error
            }
        }
    }
}
