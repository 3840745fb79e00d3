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
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var position: Int64 = 0
        while position < length {
            // Stop exactly at `offset` once, to compare the recorded prefix.
            let limit = position < offset ? offset : length
            let wanted = Int(min(Int64(chunk), limit - position))
            let count = pread(descriptor, buffer.baseAddress, wanted, off_t(position))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return self }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            position += Int64(count)
            if position == offset, hasher.currentHexDigest != sha256.lowercased() { return self }
        }
        var extended = self
        extended.offset = length
        extended.sha256 = hasher.currentHexDigest
        return extended
    }
}
