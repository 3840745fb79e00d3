import Foundation
import NIOConcurrencyHelpers

/// A real FTP server for the engine's ftp:// tests: Debian's `python3-pyftpdlib`, run as a
/// child process on 127.0.0.1, serving a fresh temporary directory with write access.
///
/// Anonymous login unless `credentials` are given. Check `isAvailable` first and skip the
/// test when it is false, rather than fail on a machine without pyftpdlib.
public final class FTPServer: Sendable {
    public let port: Int
    /// The directory served as the FTP root; uploads land here.
    public let directory: String

    /// Holds the pyftpdlib log, beside (not inside) the served directory.
    private let workDirectory: URL
    private let running: NIOLockedValueBox<RunningProcess?>

    /// The Python with pyftpdlib: Debian's, not whatever `python3` is first on PATH.
    static let python = "/usr/bin/python3"

    private init(port: Int, directory: String, workDirectory: URL, process: RunningProcess) {
        self.port = port
        self.directory = directory
        self.workDirectory = workDirectory
        self.running = NIOLockedValueBox(process)
    }

    /// Whether python3 can import pyftpdlib (Debian package python3-pyftpdlib).
    public static let isAvailable: Bool = CommandLineTool(executablePath: python).succeeds(["-c", "import pyftpdlib"])

    /// Writes `files` (name → contents; names may contain "/" for subdirectories) into a new
    /// directory, starts the server on a port it chooses, and returns once it accepts connections.
    /// `sendLimit` (bytes a second) paces downloads, so that a test can stop one midway: every one, or
    /// only the first `throttledDownloads` (a continuation then runs at full speed, and a slow pause
    /// on a busy machine still lands midway).
    /// - Throws: `TestServerError.toolMissing` without python3, `.serverDidNotStart` (with the
    ///   server's log) when it exits or is not reachable within 10 seconds.
    public static func start(
        files: [String: Data], credentials: (user: String, password: String)? = nil, sendLimit: Int? = nil,
        throttledDownloads: Int? = nil
    ) throws -> FTPServer {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestServerError.toolMissing(path: python)
        }
        let workDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ferry-ftp-\(UUID().uuidString)", isDirectory: true)
        let root = workDirectory.appendingPathComponent("root", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for (name, contents) in files {
                let file = root.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try contents.write(to: file)
            }
            // pyftpdlib binds a free port itself and logs which: a port chosen here and bound there
            // could meanwhile be taken by another test's server, which would then answer for this one.
            let process = try RunningProcess.launch(
                python,
                arguments: pyftpdlibArguments(
                    root: root.path, credentials: credentials, sendLimit: sendLimit, throttledDownloads: throttledDownloads),
                log: workDirectory.appendingPathComponent("pyftpdlib.log")
            )
            let port = try waitUntilListening(process)
            return FTPServer(port: port, directory: root.path, workDirectory: workDirectory, process: process)
        } catch {
            try? FileManager.default.removeItem(at: workDirectory)
            throw error
        }
    }

    /// What pyftpdlib logged (every command and reply), for a failing test to show.
    public var log: String {
        running.withLockedValue { $0?.logText } ?? ""
    }

    /// "ftp://127.0.0.1:PORT/name"
    public func url(_ name: String) -> String {
        "ftp://127.0.0.1:\(port)/" + (name.hasPrefix("/") ? String(name.dropFirst()) : name)
    }

    /// Terminates the server and removes its directory. Safe to call more than once.
    public func stop() {
        let process = running.withLockedValue { running in
            defer { running = nil }
            return running
        }
        process?.terminate()
        try? FileManager.default.removeItem(at: workDirectory)
    }

    deinit {
        stop()
    }

    /// Sets a served file's modification time, which the server reports for MDTM.
    public func setModificationTime(of name: String, to date: Date) throws {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }

    /// `python3 -m pyftpdlib -i 127.0.0.1 -p 0 -d DIR -w`, run through a short prelude that
    /// exits when its standard input closes: if the test process dies without `stop()`, the
    /// pipe closes with it and the server does not outlive it. With `sendLimit`, the prelude makes
    /// data connections (all, or the first `throttledDownloads`) pyftpdlib's throttled one.
    private static func pyftpdlibArguments(
        root: String, credentials: (user: String, password: String)?, sendLimit: Int?, throttledDownloads: Int?
    ) -> [String] {
        let throttle = sendLimit.map { limit in
            """
            from pyftpdlib.handlers import DTPHandler, FTPHandler, ThrottledDTPHandler
            ThrottledDTPHandler.write_limit = \(limit)
            made = [0]
            def data_connection(sock, cmd_channel):
                made[0] += 1
                throttled = \(throttledDownloads.map { "made[0] <= \($0)" } ?? "True")
                return (ThrottledDTPHandler if throttled else DTPHandler)(sock, cmd_channel)
            FTPHandler.dtp_handler = staticmethod(data_connection)

            """
        } ?? ""
        let prelude = """
            import os, runpy, sys, threading
            threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
            \(throttle)sys.argv[0] = "pyftpdlib"
            runpy.run_module("pyftpdlib", run_name="__main__", alter_sys=True)
            """
        var arguments = ["-c", prelude, "-i", "127.0.0.1", "-p", "0", "-d", root, "-w"]
        if let credentials {
            arguments += ["-u", credentials.user, "-P", credentials.password]
        }
        return arguments
    }

    /// The port the server logged it listens on (">>> starting FTP server on 127.0.0.1:PORT"), once
    /// it accepts connections there.
    private static func waitUntilListening(_ process: RunningProcess) throws -> Int {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else {
                throw TestServerError.serverDidNotStart("pyftpdlib exited: \(process.logText)")
            }
            if let port = listeningPort(in: process.logText), LoopbackPort.acceptsConnections(port) {
                return port
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        throw TestServerError.serverDidNotStart("pyftpdlib not listening after 10 s: \(process.logText)")
    }

    static func listeningPort(in log: String) -> Int? {
        let marker = "starting FTP server on 127.0.0.1:"
        guard let range = log.range(of: marker) else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }
}
