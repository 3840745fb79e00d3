@testable import FerryAPI
@testable import FerryStore
import Foundation
import NIOCore
import Synchronization
import Testing

/// Job polls answered from a recent read (bench P4): polls arriving while a job's view is
/// read share that read, but only with callers of the same scope, and a read that a control raced is
/// not kept.
@Suite("Recent jobs")
struct RecentJobsTests {
    let job = UUID()
    let tenant = UUID()

    /// A read that waits until `release` is called, counting how often it ran.
    final class GatedRead: Sendable {
        let calls = Atomic<Int>(0)
        private let gate = AsyncStream<Void>.makeStream()
        let result: (body: ByteBuffer, tenant: UUID)?

        init(body: String, tenant: UUID?) {
            result = tenant.map { (ByteBuffer(string: body), $0) }
        }

        func read() async throws -> (body: ByteBuffer, tenant: UUID)? {
            calls.add(1, ordering: .relaxed)
            for await _ in gate.stream { break }
            return result
        }

        func release() { gate.continuation.yield() }
    }

    private func poll(_ recent: RecentJobs, _ read: GatedRead, scope: JobStore.Scope, count: Int) async throws -> [String?] {
        try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await recent.body(job, showsTenant: false, scope: scope, read: read.read).map { String(buffer: $0) }
                }
            }
            // Every poll has asked before the read may answer.
            while read.calls.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(1)) }
            try await Task.sleep(for: .milliseconds(50))
            read.release()
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("polls of a job whose view is being read share that one read, and the next poll is answered from it")
    func concurrentPollsShareOneRead() async throws {
        let recent = RecentJobs()
        let read = GatedRead(body: "view", tenant: tenant)
        let bodies = try await poll(recent, read, scope: .tenant(tenant), count: 64)
        #expect(bodies == Array(repeating: "view", count: 64))
        #expect(read.calls.load(ordering: .relaxed) == 1)

        let never = GatedRead(body: "unused", tenant: tenant)
        let again = try await recent.body(job, showsTenant: false, scope: .tenant(tenant), read: never.read)
        #expect(again.map { String(buffer: $0) } == "view")
        #expect(never.calls.load(ordering: .relaxed) == 0)
    }

    @Test("another tenant's poll of the same id neither shares the read nor sees the remembered view")
    func scopesDoNotShare() async throws {
        let recent = RecentJobs()
        let owners = GatedRead(body: "view", tenant: tenant)
        let strangers = GatedRead(body: "view", tenant: nil)
        async let ownerBodies = poll(recent, owners, scope: .tenant(tenant), count: 8)
        async let strangerBodies = poll(recent, strangers, scope: .tenant(UUID()), count: 8)
        #expect(try await ownerBodies == Array(repeating: "view", count: 8))
        #expect(try await strangerBodies == Array(repeating: nil, count: 8))
        #expect(owners.calls.load(ordering: .relaxed) == 1)
        #expect(strangers.calls.load(ordering: .relaxed) == 1)

        let later = GatedRead(body: "view", tenant: nil)
        async let laterBodies = poll(recent, later, scope: .tenant(UUID()), count: 1)
        #expect(try await laterBodies == [nil])
        #expect(later.calls.load(ordering: .relaxed) == 1, "a stranger's poll is never answered from the owner's view")
    }

    @Test("a read that a control raced is not remembered: the next poll reads again")
    func forgetDuringReadIsNotRemembered() async throws {
        let recent = RecentJobs()
        let read = GatedRead(body: "before the control", tenant: tenant)
        async let bodies = poll(recent, read, scope: .tenant(tenant), count: 1)
        while read.calls.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        recent.forget(job)
        #expect(try await bodies == ["before the control"])

        let after = GatedRead(body: "after the control", tenant: tenant)
        async let next = poll(recent, after, scope: .tenant(tenant), count: 1)
        #expect(try await next == ["after the control"])
        #expect(after.calls.load(ordering: .relaxed) == 1)
    }
}
