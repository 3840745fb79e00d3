import ArgumentParser
import Foundation
import URLLoading

/// What a command keeps between runs: an HTTP cache directory and a cookie jar in the Netscape format
/// curl reads and writes, so jars move between curl and Ferry.
struct StorageOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "Keep an HTTP cache in <dir> (created if missing): a later run serves fresh responses from it and revalidates stale ones.",
            valueName: "dir"))
    var cacheDirectory: String?

    @Option(
        name: [.customShort("b"), .customLong("cookie")],
        help: ArgumentHelp("Send the cookies of the Netscape cookie jar <file> (as curl -b); a missing file is an empty jar.",
                           valueName: "file"))
    var cookieFile: String?

    @Option(
        name: [.customShort("c"), .customLong("cookie-jar")],
        help: ArgumentHelp("After the transfers, write every cookie to <file> in the Netscape format (as curl -c).", valueName: "file"))
    var cookieJar: String?

    static let cacheMemoryCapacity = 4 << 20
    static let cacheDiskCapacity = 512 << 20

    mutating func validate() throws {
        if cacheDirectory == "" { throw ValidationError("--cache-dir needs a directory") }
        if cookieFile == "" { throw ValidationError("-b needs a cookie jar file") }
        if cookieJar == "" { throw ValidationError("-c needs a file to write the cookies to") }
    }

    /// Whether the session may write to disk: only for a cache directory. Otherwise a run keeps
    /// nothing beyond the files it was asked for.
    var needsPersistentSession: Bool { cacheDirectory != nil }

    /// Adds the cache and the cookie storage to `configuration`.
    func apply(to configuration: inout SessionConfiguration) throws(UsageError) {
        if let cacheDirectory {
            do {
                configuration.urlCache = try LocalResponseCache(
                    memoryCapacity: Self.cacheMemoryCapacity, diskCapacity: Self.cacheDiskCapacity,
                    directory: URL(fileURLWithPath: cacheDirectory, isDirectory: true))
            } catch {
                throw UsageError("--cache-dir \(cacheDirectory): cannot use it as a cache directory: \(error.localizedDescription)")
            }
        }
        var cookies: [Cookie] = []
        if let cookieFile, FileManager.default.fileExists(atPath: cookieFile) {
            do {
                cookies = try NetscapeCookieJar.read(from: URL(fileURLWithPath: cookieFile))
            } catch {
                throw UsageError("-b \(cookieFile): cannot read the cookie jar: \(error.localizedDescription)")
            }
        }
        if cookieFile != nil || cookieJar != nil {
            configuration.httpCookieStorage = InMemoryCookieStorage(cookies: cookies)
        }
    }

    /// Writes the session's cookies to the -c file; returns a failure line, or nil.
    func saveCookies(of session: Session) -> String? {
        guard let cookieJar, let storage = session.configuration.httpCookieStorage else { return nil }
        do {
            try NetscapeCookieJar.write(storage.cookies, to: URL(fileURLWithPath: cookieJar))
            return nil
        } catch {
            return "ferry: -c \(cookieJar): cannot write the cookie jar: \(error.localizedDescription)"
        }
    }
}
