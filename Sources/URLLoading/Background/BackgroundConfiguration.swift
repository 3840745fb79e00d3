import Foundation

extension SessionConfiguration {
    /// What makes a configuration a background one (SES-04, BG-01): its tasks outlive the process
    /// that made them. Ferry has no daemon of its own to hand transfers to; instead the session keeps
    /// each outstanding task in `store`, and a session made later with the same identifier, in this
    /// process or another, takes them up again (BG-08, BG-11, BG-13, BG-24).
    public struct Background: Sendable, Equatable {
        /// Names the session's tasks across processes; unique within the application, not globally:
        /// a fixed string is fine (BG-12, BG-15). Used as a directory name by the default store.
        public let identifier: String
        /// Where the outstanding tasks are kept (`BackgroundTaskDirectory` by default).
        public var store: any BackgroundTaskStore {
            get { storeReference.value }
            set { storeReference = ObjectReference(newValue, identity: newValue) }
        }
        private var storeReference: ObjectReference<any BackgroundTaskStore>
        /// How tasks that failed on the network try again (BG-06).
        public var retry = BackgroundRetryPolicy()
        /// How often a running download's resume data is written to the store: at most this much
        /// downloading is fetched again after the process is killed. Default 1 s.
        public var resumeDataInterval: TimeInterval = 1

        init(identifier: String, store: any BackgroundTaskStore) {
            self.identifier = identifier
            self.storeReference = ObjectReference(store, identity: store)
        }

        func validate() throws(ConfigurationError) {
            guard !identifier.isEmpty, identifier.utf8.count <= 200 else {
                throw ConfigurationError("a background identifier must be 1 to 200 bytes long")
            }
            guard identifier != ".", identifier != "..", !identifier.contains("/"), !identifier.contains("\0") else {
                throw ConfigurationError("background identifier '\(identifier)' cannot name a directory (no '/', not '.' or '..')")
            }
            guard resumeDataInterval > 0 else { throw ConfigurationError("background resumeDataInterval must be positive") }
            try retry.validate()
        }
    }

    /// A configuration whose tasks outlive the process (SES-04, BG-12): a default configuration
    /// (persistent storage, shared cookies and credentials) with `background` set. Its outstanding
    /// tasks are kept in `store`, by default `BackgroundTaskDirectory(identifier:)` in the user's state
    /// directory. Such a session:
    /// - makes only http(s) download tasks and upload tasks from a file (BG-04, TT-03, UP-13);
    /// - follows redirects without asking its delegate (RD-07) and never asks it about caching
    ///   (CA-11, BG-22);
    /// - retries network failures on its own until `resourceTimeout` (BG-06, ER-13);
    /// - takes up, when it is made, the tasks a session of the same identifier left (BG-08, BG-13);
    /// - is the only live session of its identifier in the process (BG-23, SES-13).
    public static func background(identifier: String, store: (any BackgroundTaskStore)? = nil) -> SessionConfiguration {
        var configuration = SessionConfiguration.default
        configuration.background = Background(
            identifier: identifier, store: store ?? BackgroundTaskDirectory(identifier: identifier))
        return configuration
    }

    /// The background session's identifier; nil for other configurations.
    public var identifier: String? { background?.identifier }
}
