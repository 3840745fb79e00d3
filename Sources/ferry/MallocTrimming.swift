#if canImport(Glibc)
import CMalloc
import Glibc
#endif

/// How much freed memory glibc keeps for the next allocation instead of handing it back at once.
///
/// glibc returns the free top of its heap to the kernel once it exceeds 128 KiB, and the next
/// allocation there touches fresh pages, each a page fault and a page cleared. `ferry get -i` makes
/// a transfer per file, each with its own curl receive buffer (64 KiB among 50 at once), so the
/// heap's top was handed back and faulted in again all run long: 5,000 to 27,000 page faults a run
/// of bench P2, against 4,000 to 6,000 with these bounds, and 11 to 16 % less CPU. Setting the
/// trim threshold also stops glibc from moving its mmap threshold by itself, so that one is set too:
/// buffers under 1 MiB (curl's largest is 256 KiB) come from the heap and are reused, not mapped and
/// unmapped for every transfer. glibc's own variables still decide when they are set.
enum MallocTrimming {
    static let trimThreshold: Int32 = 8 << 20
    static let mmapThreshold: Int32 = 1 << 20

    /// At start, before the transfers allocate.
    static func keepFreedMemoryUnlessConfigured() {
        #if canImport(Glibc)
        if getenv("MALLOC_TRIM_THRESHOLD_") == nil { _ = mallopt(M_TRIM_THRESHOLD, trimThreshold) }
        if getenv("MALLOC_MMAP_THRESHOLD_") == nil { _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold) }
        #endif
    }
}
