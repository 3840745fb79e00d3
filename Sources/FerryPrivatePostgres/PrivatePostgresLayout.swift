import Crypto
import Foundation

/// Where the private cluster's pieces live for one data directory.
///
/// ```
/// <data dir>/postgres/               the cluster (PGDATA), owned by the server account, mode 0700
///            postgres/ferry.conf     settings ferryd writes at every start (included by postgresql.conf)
///            postgres/server.log     the server's log
/// <data dir>/postgres.initializing/  initdb's target; renamed to postgres/ only once initdb succeeded
/// <data dir>/postgres.lock           held while a ferryd starts or stops the server
/// <data dir>/postgres.users          held (shared) by every ferryd using the server
/// <data dir>/socket/                 the Unix socket, when its path fits (see `socketDirectory`)
/// ```
struct PrivatePostgresLayout: Sendable, Equatable {
    /// The socket file's name is fixed by PostgreSQL: `.s.PGSQL.<port>`. The server listens on no TCP
    /// port at all, so the number only names the file, and each data directory has its own socket
    /// directory: every private cluster can use the standard 5432 without colliding.
    static let port = 5432
    /// `sun_path` holds 108 bytes on Linux, one of them the terminating NUL.
    static let socketPathLimit = 107
    static let socketFileName = ".s.PGSQL.\(port)"

    let dataDirectory: String
    let socketDirectory: String

    init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        self.socketDirectory = Self.socketDirectory(for: dataDirectory)
    }

    var clusterDirectory: String { "\(dataDirectory)/postgres" }
    var initializingDirectory: String { "\(dataDirectory)/postgres.initializing" }
    var startStopLockFile: String { "\(dataDirectory)/postgres.lock" }
    var usersLockFile: String { "\(dataDirectory)/postgres.users" }
    var settingsFile: String { "\(clusterDirectory)/ferry.conf" }
    var serverLogFile: String { "\(clusterDirectory)/server.log" }
    var postmasterPIDFile: String { "\(clusterDirectory)/postmaster.pid" }
    var isVersionFilePresent: Bool { FileManager.default.fileExists(atPath: "\(clusterDirectory)/PG_VERSION") }

    /// True when the socket lives in a shared place (/tmp) rather than inside the data directory.
    var socketDirectoryIsOutsideDataDirectory: Bool { !socketDirectory.hasPrefix(dataDirectory + "/") }

    /// `<data dir>/socket` when `<data dir>/socket/.s.PGSQL.5432` fits in a socket address; otherwise
    /// `/tmp/ferry-pg-<hash of the data directory path>`, which is short, the same at every start for
    /// the same data directory, and different for different ones. Literally `/tmp`, not `$TMPDIR`,
    /// because `$TMPDIR` can itself be long (macOS) and would defeat the point.
    static func socketDirectory(for dataDirectory: String) -> String {
        let inside = "\(dataDirectory)/socket"
        if "\(inside)/\(socketFileName)".utf8.count <= socketPathLimit {
            return inside
        }
        let digest = SHA256.hash(data: Data(dataDirectory.utf8))
        let hash = digest.prefix(8).map { String(format: "%02x", $0) }.joined()
        return "/tmp/ferry-pg-\(hash)"
    }
}
