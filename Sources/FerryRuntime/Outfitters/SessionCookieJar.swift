import FerryStore
import Foundation
import Synchronization
import URLLoading

/// A gateway session's cookie jar as its engine sessions use it on one ferryd: the cookies in memory
/// (an `InMemoryCookieStorage`, which the engine reads and writes synchronously on its transfer
/// threads), plus which cookies changed here since they were last written to PostgreSQL.
///
/// Before each job `merge(stored:)` brings in what the database holds (another ferryd's job may have
/// logged in since), keeping the cookies changed here and not yet written; after each job
/// `takeChanges()` gives those to `SessionCookieJars` to write. The engine never waits for the
/// database, and no change is lost to a reload in between.
final class SessionCookieJar: CookieStorage {
    /// What `takeChanges()` hands out: cookies to store (insert or replace) and identities to delete.
    typealias Changes = SessionCookieChanges

    private let memory = InMemoryCookieStorage()
    /// Identities of cookies changed here and not yet written. Every access to `memory` happens under
    /// this lock, so a merge and a response's Set-Cookie never interleave.
    private let unwritten = Mutex<Set<Cookie.Identity>>([])

    var acceptPolicy: CookieAcceptPolicy {
        get { memory.acceptPolicy }
        set { memory.acceptPolicy = newValue }
    }

    var cookies: [Cookie] { unwritten.withLock { _ in memory.cookies } }

    func setCookie(_ cookie: Cookie) {
        unwritten.withLock { unwritten in
            memory.setCookie(cookie)
            unwritten.insert(cookie.identity)
        }
    }

    func deleteCookie(_ cookie: Cookie) {
        unwritten.withLock { unwritten in
            memory.deleteCookie(cookie)
            unwritten.insert(cookie.identity)
        }
    }

    func changes() -> AsyncStream<CookieChange> { memory.changes() }

    /// Whether changes made here wait to be written (the jar must not be forgotten before that).
    var hasUnwrittenChanges: Bool { unwritten.withLock { !$0.isEmpty } }

    /// Makes the jar what the database holds, except for cookies changed here and not yet written:
    /// those stay as they are here (they are newer).
    func merge(stored: [Cookie]) {
        unwritten.withLock { unwritten in
            let storedIdentities = Set(stored.map(\.identity))
            for cookie in memory.cookies where !unwritten.contains(cookie.identity) && !storedIdentities.contains(cookie.identity) {
                memory.deleteCookie(cookie)
            }
            for cookie in stored where !unwritten.contains(cookie.identity) {
                memory.setCookie(cookie)
            }
        }
    }

    /// The changes made here since the last call, as they stand now; the caller writes them, and
    /// gives them back with `restore(_:)` if it cannot.
    func takeChanges() -> Changes {
        unwritten.withLock { unwritten in
            guard !unwritten.isEmpty else { return Changes() }
            let current = Dictionary(memory.cookies.map { ($0.identity, $0) }) { first, _ in first }
            var changes = Changes()
            for identity in unwritten {
                if let cookie = current[identity] { changes.stored.append(cookie) } else { changes.deleted.append(identity) }
            }
            unwritten.removeAll()
            return changes
        }
    }

    /// Changes that could not be written: they are written with the next job's.
    func restore(_ changes: Changes) {
        unwritten.withLock { unwritten in
            for cookie in changes.stored { unwritten.insert(cookie.identity) }
            for identity in changes.deleted { unwritten.insert(identity) }
        }
    }
}
