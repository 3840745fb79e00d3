import Foundation

/// Chooses the file name each URL of an `-i` list is saved under in the output directory.
///
/// The name is the URL's last path component. Two URLs with the same one must not overwrite each
/// other, and the outcome must not depend on which transfer finishes first, so names are fixed up
/// front in list order: the first URL keeps the plain name, later ones get `.1`, `.2`, ... appended
/// (`a.bin`, `a.bin.1`), skipping any name another URL already has (wget's convention).
enum OutputNames {
    /// One name per entry, in order.
    static func assign(_ entries: [URLList.Entry], source: String) throws(UsageError) -> [String] {
        var plainNames: [String] = []
        for entry in entries {
            guard let name = fileName(of: entry.url) else {
                throw UsageError(
                    "\(source):\(entry.lineNumber): '\(entry.text)' has no file name at the end of its path")
            }
            plainNames.append(name)
        }
        // Plain names are reserved first, so "a.bin.1" listed later still gets exactly that name.
        var taken = Set(plainNames)
        var seen: Set<String> = []
        var names: [String] = []
        for name in plainNames {
            guard seen.contains(name) else {
                seen.insert(name)
                names.append(name)
                continue
            }
            var suffix = 1
            while taken.contains("\(name).\(suffix)") { suffix += 1 }
            let unique = "\(name).\(suffix)"
            taken.insert(unique)
            names.append(unique)
        }
        return names
    }

    /// The last path component if it is usable as a file name in a directory, else nil.
    static func fileName(of url: URL) -> String? {
        let name = url.lastPathComponent
        guard !name.isEmpty, name != "/", name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            return nil
        }
        return name
    }
}
