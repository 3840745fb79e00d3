import Foundation

/// Finds the `migrations/` folder from any working directory.
///
/// The SQL files live at the top of the repository, not inside a target, so SwiftPM cannot bundle
/// them: `resources:` only accepts paths inside the target's own folder, and a copy there would be a
/// second source of truth to keep in sync. So ferryd looks for them, in this order:
///
/// 1. `--migrations DIR` or `FERRY_MIGRATIONS_DIR`: used as given, and an error if missing (an
///    explicit setting that silently fell back would hide typos).
/// 2. A `migrations/` folder holding `0001_*.sql` next to the executable or in any folder above
///    it. This finds the repository's folder from `.build/<triple>/debug/ferryd` (three levels up),
///    and `/app/migrations` beside an installed `/app/ferryd` (the container layout). Both the
///    executable's real path and the path it was started by are tried, so a symlink in `PATH` works.
/// 3. `migrations/` in the current directory.
public enum MigrationDirectoryLocator {
    public static func locate(
        explicit: String?,
        executable: URL? = Bundle.main.executableURL,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(MigrationError) -> MigrationDirectory {
        if let explicit {
            guard FileManager.default.fileExists(atPath: explicit) else {
                throw .directoryNotFound(path: explicit)
            }
            return MigrationDirectory(path: explicit)
        }
        var searched: [String] = []
        for candidate in candidates(executable: executable, currentDirectory: currentDirectory) {
            searched.append(candidate)
            if MigrationDirectory.looksLikeMigrations(candidate) {
                return MigrationDirectory(path: candidate)
            }
        }
        throw .directoryNotLocated(searched: searched)
    }

    /// Every place step 2 and 3 look, nearest first, without duplicates.
    package static func candidates(executable: URL?, currentDirectory: String) -> [String] {
        var starts: [URL] = []
        if let executable {
            starts.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
            starts.append(executable.standardizedFileURL.deletingLastPathComponent())
        }
        var candidates: [String] = []
        for start in starts {
            var directory = start.standardizedFileURL
            while true {
                candidates.append(directory.appendingPathComponent("migrations").path)
                let parent = directory.deletingLastPathComponent().standardizedFileURL
                if parent.path == directory.path || directory.path == "/" {
                    break
                }
                directory = parent
            }
        }
        candidates.append(URL(fileURLWithPath: currentDirectory).appendingPathComponent("migrations").standardizedFileURL.path)
        var seen = Set<String>()
        return candidates.filter { seen.insert($0).inserted }
    }
}
