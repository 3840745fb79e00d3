import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The operating-system account the private PostgreSQL server runs as.
///
/// PostgreSQL refuses to run as root (a database server with root's powers is one SQL injection
/// away from owning the machine), and CI and containers commonly run ferryd as root. Then the
/// server runs as the unprivileged system user `ferry-postgres`, created on first use, and every
/// PostgreSQL program is started through `runuser`. Otherwise it runs as whoever runs ferryd.
enum PrivatePostgresAccount: Sendable, Equatable {
    case currentUser
    case systemUser(SystemUser)

    struct SystemUser: Sendable, Equatable {
        let name: String
        let uid: uid_t
        let gid: gid_t
        let runuser: String
    }

    static let systemUserName = "ferry-postgres"

    /// The account for this process, creating `ferry-postgres` when running as root and it does not exist yet.
    static func forThisProcess() async throws(PrivatePostgresError) -> PrivatePostgresAccount {
        guard geteuid() == 0 else {
            return .currentUser
        }
        let runuser = try systemTool("runuser", package: "util-linux")
        if let user = lookUpUser(systemUserName) {
            return .systemUser(SystemUser(name: systemUserName, uid: user.uid, gid: user.gid, runuser: runuser))
        }
        let useradd = try systemTool("useradd", package: "passwd")
        let creation = PrivatePostgresCommand(
            executable: useradd,
            arguments: ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", systemUserName],
            purpose: "creating the system user \(systemUserName)")
        let outcome = try await creation.run()
        // Another ferryd starting at the same moment may have created it first (useradd then exits 9).
        guard let user = lookUpUser(systemUserName) else {
            throw .commandFailed(
                purpose: creation.purpose, commandLine: creation.commandLine, status: outcome.status, output: outcome.standardError)
        }
        return .systemUser(SystemUser(name: systemUserName, uid: user.uid, gid: user.gid, runuser: runuser))
    }

    /// The account a server started by an earlier run would be using; never creates anything
    /// (for stopping, where a missing user means there is nothing of ours to stop).
    static func existingForThisProcess() throws(PrivatePostgresError) -> PrivatePostgresAccount? {
        guard geteuid() == 0 else {
            return .currentUser
        }
        guard let user = lookUpUser(systemUserName) else {
            return nil
        }
        let runuser = try systemTool("runuser", package: "util-linux")
        return .systemUser(SystemUser(name: systemUserName, uid: user.uid, gid: user.gid, runuser: runuser))
    }

    var name: String {
        switch self {
        case .currentUser: return lookUpUserName(geteuid()) ?? "uid \(geteuid())"
        case .systemUser(let user): return user.name
        }
    }

    var uid: uid_t {
        switch self {
        case .currentUser: return geteuid()
        case .systemUser(let user): return user.uid
        }
    }

    /// `executable arguments`, run as this account.
    func command(_ executable: String, _ arguments: [String], purpose: String) -> PrivatePostgresCommand {
        switch self {
        case .currentUser:
            return PrivatePostgresCommand(executable: executable, arguments: arguments, purpose: purpose)
        case .systemUser(let user):
            return PrivatePostgresCommand(
                executable: user.runuser, arguments: ["-u", user.name, "--", executable] + arguments, purpose: purpose)
        }
    }

    /// Makes `path` (one file or directory) belong to this account.
    func takeOwnership(of path: String) throws(PrivatePostgresError) {
        guard case .systemUser(let user) = self else { return }
        guard chown(path, user.uid, user.gid) == 0 else {
            throw .fileSystem(path: path, action: "give to \(user.name)", reason: String(cString: strerror(errno)))
        }
    }

    /// Makes everything under `directory` belong to this account (a cluster created by another user).
    func takeOwnership(ofTree directory: String) async throws(PrivatePostgresError) {
        guard case .systemUser(let user) = self else { return }
        let chownTool = try Self.systemTool("chown", package: "coreutils")
        try await PrivatePostgresCommand(
            executable: chownTool, arguments: ["-R", "\(user.uid):\(user.gid)", directory],
            purpose: "giving \(directory) to \(user.name)"
        ).runChecked()
    }

    /// Throws unless this account can enter every directory above `path` (which it will own itself).
    ///
    /// Checked up front because the failure otherwise surfaces as initdb's "could not access
    /// directory: Permission denied", which does not say that the server is not running as root.
    func checkCanReach(_ path: String) throws(PrivatePostgresError) {
        guard case .systemUser(let user) = self else { return }
        var ancestor = URL(fileURLWithPath: path).deletingLastPathComponent()
        while true {
            var status = stat()
            if stat(ancestor.path, &status) == 0 {
                let mode = UInt16(status.st_mode & 0o7777)
                let searchBit: UInt16
                if status.st_uid == user.uid {
                    searchBit = 0o100
                } else if status.st_gid == user.gid {
                    searchBit = 0o010
                } else {
                    searchBit = 0o001
                }
                guard mode & searchBit != 0 else {
                    throw .unreachable(path: path, account: user.name, blockedAt: ancestor.path, mode: mode)
                }
            }
            if ancestor.path == "/" { return }
            ancestor = ancestor.deletingLastPathComponent()
        }
    }

    static func systemTool(_ name: String, package: String) throws(PrivatePostgresError) -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        guard let found = directories.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw .toolNotFound(name: name, package: package)
        }
        return found
    }

    private static func lookUpUser(_ name: String) -> (uid: uid_t, gid: gid_t)? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getpwnam_r(name, &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil else { return nil }
        return (entry.pw_uid, entry.pw_gid)
    }

    private func lookUpUserName(_ uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }
}
