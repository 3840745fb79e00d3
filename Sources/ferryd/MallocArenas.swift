#if canImport(Glibc)
import CMalloc
import Glibc
#endif

/// glibc gives a thread that meets another in malloc an arena of its own, up to eight per core, and
/// each arena keeps what its threads freed for their next allocation. ferryd's threads (NIO's loops,
/// the engine's curl loops, dispatch and the cooperative pool) all allocate for every transfer, so
/// with many transfers at once each arena holds its own few MiB of free memory (bench P5). Two arenas
/// keep malloc's lock contention low on the machines ferryd runs on; `MALLOC_ARENA_MAX`, read by
/// glibc itself, still decides when it is set.
enum MallocArenas {
    static let limit: Int32 = 2

    /// Before any thread but the main one allocates: arenas made earlier are kept.
    static func limitUnlessConfigured() {
        #if canImport(Glibc)
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        _ = mallopt(M_ARENA_MAX, limit)
        #endif
    }
}
