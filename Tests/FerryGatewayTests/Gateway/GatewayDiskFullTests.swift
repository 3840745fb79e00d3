import Foundation
import Testing
import URLLoadingTestSupport

/// A download that fills the disk, on a real small file system: ferryd's data directory is a 4 MiB
/// tmpfs (the database is the shared test server, so only files live there) and the job asks for
/// 8 MiB.
@Suite("Gateway: a full disk", .timeLimit(.minutes(5)))
struct GatewayDiskFullTests {
    static let tmpfsBytes = 4 << 20

    @Test("a download that fills the disk fails at once with insufficient_storage, leaves no partial file, and ferryd carries on")
    func downloadFillingTheDisk() async throws {
        try await TestDatabase.withFresh { database in
            try await TemporaryDirectory.withNew { dataDirectory in
                try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
                guard mount("tmpfs", dataDirectory, "tmpfs", 0, "size=\(Self.tmpfsBytes),mode=0755") == 0 else {
                    let reason = String(cString: strerror(errno))
                    // Recorded as skipped, with the reason: mounting needs root (CAP_SYS_ADMIN), which
                    // this machine and CI have.
                    try Test.cancel("cannot mount a tmpfs as ferryd's data directory: \(reason)")
                }
                defer { umount2(dataDirectory, Int32(MNT_DETACH)) }
                try await OriginServer.withRunning { origin in
                    let adminKey = "ferry_test_admin_" + UUID().uuidString.lowercased()
                    try await FerrydServer.withRunning(databaseURL: database.url, dataDirectory: dataDirectory, adminKey: adminKey) { server in
                        let admin = GatewayClient(baseURL: server.baseURL, key: adminKey, session: GatewayFixture.engine)
                        let (_, key) = try await admin.createTenant("disk-full")
                        let client = admin.with(key: key)

                        let big = try await client.submit(["kind": "download", "request": ["url": origin.url("/bytes/\(8 << 20)")]])
                        let failed = try await client.waitForState(big, ["succeeded", "failed"])
                        #expect(failed["state"] as? String == "failed", "\(failed)")
                        let error = failed["error"] as? [String: Any]
                        #expect(error?["code"] as? String == "insufficient_storage", "\(failed)")
                        #expect(failed["attempt"] as? Int == 1, "a full disk is not retried: \(failed)")

                        // The partial file went with the job: the file system is (nearly) empty again.
                        #expect(Self.files(under: dataDirectory).filter { $0.hasSuffix(".tmp") }.isEmpty)
                        #expect(Self.usedBytes(of: dataDirectory) < 1 << 20, "\(Self.files(under: dataDirectory))")

                        let small = try await client.submit(["kind": "download", "request": ["url": origin.url("/bytes/100000")]])
                        let done = try await client.waitForState(small, ["succeeded", "failed"])
                        #expect(done["state"] as? String == "succeeded", "\(done)")
                        #expect((done["result"] as? [String: Any])?["sha256"] as? String == GatewayFixture.patternSHA256(100_000))
                        #expect(try await admin.with(key: nil).get("/healthz").status == 200)
                        #expect(server.isRunning)
                    }
                }
            }
        }
    }

    /// Every regular file under `directory`, relative to it.
    static func files(under directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(directory)/\(name)", isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(name)
            }
        }
        return found
    }

    /// Bytes in use on the file system holding `path`.
    static func usedBytes(of path: String) -> Int {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return Int.max }
        return Int(status.f_blocks - status.f_bfree) * Int(status.f_frsize)
    }
}
