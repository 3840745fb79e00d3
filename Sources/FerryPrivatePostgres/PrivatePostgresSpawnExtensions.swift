import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// glibc's non-standard `posix_spawn` file actions, looked up at run time.
///
/// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34) and `..._addchdir_np` (2.29) are declared
/// only under `_GNU_SOURCE`, which Swift's Glibc module does not define, so they cannot be called
/// directly. Where `closefrom` is missing, every descriptor open right now gets its own close action
/// instead (descriptors opened meanwhile by other threads would slip through; ours are close-on-exec).
enum SpawnExtensions {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        guard let program = dlopen(nil, RTLD_NOW) else { return nil }
        return dlsym(program, name)
    }

    static func closeDescriptors(_ actions: inout posix_spawn_file_actions_t, from lowest: Int32) {
        if let address = symbol("posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(address, to: CloseFrom.self)
            if closeFrom(&actions, lowest) == 0 {
                return
            }
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor >= lowest {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// Best effort: without it the child starts in our working directory.
    static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, _ path: String) {
        guard let address = symbol("posix_spawn_file_actions_addchdir_np") else { return }
        let changeDirectory = unsafeBitCast(address, to: ChangeDirectory.self)
        _ = changeDirectory(&actions, path)
    }
}
