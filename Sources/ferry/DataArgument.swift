import Foundation

/// The body given with `--data`: the text itself, `@FILE` for a file's bytes, or `@-` for standard
/// input, like curl's `--data-binary` (the bytes are sent exactly as they are).
enum DataArgument {
    static func bytes(of argument: String) throws(UsageError) -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        if path == "-" {
            return FileHandle.standardInput.readDataToEndOfFile()
        }
        guard !path.isEmpty else { throw UsageError("--data @: a file name must follow '@'") }
        try InputFile.requireReadableRegularFile(path, argument: "--data @\(path)")
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw UsageError("--data @\(path): cannot read the file (\(InputFile.reason(error)))")
        }
    }
}
