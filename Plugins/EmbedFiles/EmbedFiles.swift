import Foundation
import PackagePlugin

/// Embeds every file under a target's `Embedded/` folder in the target's binary: `embed-files` turns
/// them into one generated Swift source, `EmbeddedFiles.swift`, whose `EmbeddedFiles.all` maps each
/// file's path below `Embedded/` ("console/index.html") to its bytes.
///
/// The files stay real files in the source tree (an editor and a linter see HTML as HTML), the binary
/// needs no working directory to serve them, and the build needs no network. A target that uses the
/// plugin lists `exclude: ["Embedded"]`, so SwiftPM does not take the files for its own resources.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        // `directory` (a Path) rather than `directoryURL`, which needs tools version 6.1.
        let folder = URL(fileURLWithPath: target.directory.string).appending(path: "Embedded", directoryHint: .isDirectory)
        let files = try Self.regularFiles(under: folder)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) files of \(target.name)/Embedded",
                executable: try context.tool(named: "embed-files").url,
                arguments: [folder.path, output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }

    /// Every regular file below `folder`, sorted by path so the generated source is the same on every
    /// machine; none when the folder does not exist.
    static func regularFiles(under folder: URL) throws -> [URL] {
        guard let walker = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in walker where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }
}
