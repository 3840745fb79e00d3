import Foundation

/// Checks on files the command line names, reported as usage errors.
enum InputFile {
    /// Fails unless `path` is an existing, readable regular file. `argument` is how the command line
    /// named it (e.g. "--upload-file big.iso"), for the message.
    static func requireReadableRegularFile(_ path: String, argument: String) throws(UsageError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw UsageError("\(argument): no such file")
        }
        guard !isDirectory.boolValue else { throw UsageError("\(argument): is a directory, not a file") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw UsageError("\(argument): permission denied")
        }
    }

    /// A short reason for a file error: strerror's text when it has an errno, else the description.
    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }
}
