/// The naming rule for migration files: `NNNN_name.sql` (four or more digits, then letters, digits
/// or underscores). The number orders the files and identifies a migration in `ferry_migrations`.
enum MigrationFileName {
    /// (version, name) for a conforming file name, nil otherwise.
    static func parse(_ fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        let isNameCharacter: (Character) -> Bool = { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        guard digits.count >= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let version = Int(digits), version > 0,
            !name.isEmpty, name.allSatisfy(isNameCharacter)
        else {
            return nil
        }
        return (version, String(name))
    }

    static func make(version: Int, name: String) -> String {
        "\(identifier(version: version, name: name)).sql"
    }

    /// "0001_initial": how ferryd names a migration in what it prints.
    static func identifier(version: Int, name: String) -> String {
        let number = String(version)
        return String(repeating: "0", count: max(0, 4 - number.count)) + number + "_" + name
    }
}
