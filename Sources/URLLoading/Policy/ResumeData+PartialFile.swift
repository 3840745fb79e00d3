import Foundation

extension ResumeData {
    /// This resume data extended over the bytes the download wrote after it was taken (DL-12).
    ///
    /// A snapshot (`DownloadTask.resumeDataSnapshot()`) covers the file as it was then; a process
    /// killed later had written more, and resuming from the snapshot alone cuts those bytes off and
    /// fetches them again. The download writes its file strictly in order with `write(2)`, so after a
    /// process dies (not the machine: the kernel still holds what was written) the file is a prefix
    /// of the body, as `curl -C -` assumes. This checks the recorded prefix against `sha256` and, when
    /// it matches, returns resume data for the whole file, hashed anew. When the file is missing, no
    /// longer than `offset`, or its prefix changed, it returns `self` unchanged, and resuming handles
    /// the file as usual (starting over if it changed).
    ///
    /// Reads the whole partial file: call it off latency-sensitive threads.
    public func coveringWholePartialFile() -> ResumeData {
        let descriptor = open(partialFile.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return self }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int64(status.st_size) > offset else { return self }
        let length = Int64(status.st_size)

        var hasher = SHA256Hasher()
        guard DownloadFile.hashBytes(of: descriptor, in: 0..<offset, into: &hasher),
            hasher.currentHexDigest == sha256.lowercased(),
            DownloadFile.hashBytes(of: descriptor, in: offset..<length, into: &hasher)
        else { return self }
        var extended = self
        extended.offset = length
        extended.sha256 = hasher.currentHexDigest
        return extended
    }
}
