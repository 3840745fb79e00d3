import Foundation
import URLLoading

/// The transfers a `ferry get` command line asks for, with every file it names read and checked.
struct GetPlan: Sendable {
    let jobs: [TransferJob]
    /// `-i`: several URLs into a directory.
    let isBatch: Bool

    /// One URL, to standard output or to `output`.
    static func single(
        url text: String, output: String?, partsDirectory: String? = nil, template: RequestTemplate
    ) throws(UsageError) -> GetPlan {
        let url = try TargetURL.parse(text)
        let destination: TransferJob.Destination
        if let partsDirectory {
            destination = .parts(try outputDirectory(partsDirectory, option: "--parts"))
        } else if let output, output != "-" {
            destination = .file(try outputFile(output))
        } else {
            destination = .standardOutput
        }
        let job = TransferJob(
            index: 0, displayURL: text, request: template.request(for: url), uploadFile: template.uploadFile,
            destination: destination)
        return GetPlan(jobs: [job], isBatch: false)
    }

    /// Every URL of the list file, each into `directory` under its own name (see `OutputNames`).
    static func batch(listFile: String, directory: String, template: RequestTemplate) throws(UsageError) -> GetPlan {
        let list = try URLList(contentsOf: listFile)
        let names = try OutputNames.assign(list.entries, source: listFile)
        let directoryURL = try outputDirectory(directory)
        let jobs = zip(list.entries, names).enumerated().map { index, pair in
            TransferJob(
                index: index, displayURL: pair.0.text, request: template.request(for: pair.0.url),
                uploadFile: template.uploadFile, destination: .file(directoryURL.appendingPathComponent(pair.1, isDirectory: false)))
        }
        return GetPlan(jobs: jobs, isBatch: true)
    }

    /// `-o FILE`: its directory must exist (the download is written there first) and it must not be
    /// a directory itself. Checked now, not after the server has started sending.
    private static func outputFile(_ path: String) throws(UsageError) -> URL {
        let file = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw UsageError("-o \(path): is a directory; give a file name")
        }
        let parent = file.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("-o \(path): the directory \(parent.path) does not exist")
        }
        return file
    }

    /// `-d DIR` (or `--parts DIR`): created (with parents) if missing.
    private static func outputDirectory(_ path: String, option: String = "-d") throws(UsageError) -> URL {
        let directory = URL(fileURLWithPath: path, isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw UsageError("\(option) \(path): exists and is not a directory") }
            return directory
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw UsageError("\(option) \(path): cannot create the directory (\(InputFile.reason(error)))")
        }
        return directory
    }
}
