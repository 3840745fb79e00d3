import URLLoading

/// What a session's cookie jar changed and has not yet written.
package struct SessionCookieChanges: Sendable {
    package var stored: [Cookie] = []
    package var deleted: [Cookie.Identity] = []
    package var isEmpty: Bool { stored.isEmpty && deleted.isEmpty }

    package init(stored: [Cookie] = [], deleted: [Cookie.Identity] = []) {
        self.stored = stored
        self.deleted = deleted
    }
}
