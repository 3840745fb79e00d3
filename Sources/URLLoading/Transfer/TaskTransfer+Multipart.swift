import Foundation

/// A `multipart/x-mixed-replace` response, delivered as a series of responses (LC-10, LG-05): each
/// part re-enters the response step (`.response`, and for a data task the disposition, LC-08), then
/// its body; the task's body starts over with each part (`ResponseSink.startOver`), and so does its
/// progress. A data task therefore ends with the last part's body, a download's file holds the last
/// part, and a streamed body carries each part after its `.response`. `.partCompleted` says each part
/// ended, with its length.
///
/// The outer response itself is not delivered: it is the task's `response` until the first part's
/// head arrives. It is neither cached nor resumable (a range of a stream of replacements means nothing).
extension TaskTransfer {
    /// Takes `response` as a multipart/x-mixed-replace one when it is and has a body: true, and its
    /// parts follow as they arrive. False for any other response, one without a usable boundary
    /// parameter included (delivered as a plain response).
    func startsMultipart(_ response: TransferResponse) -> Bool {
        guard !request.method.equalsIgnoringASCIICase("HEAD"), let status = response.statusCode, status != 204, status != 304,
              let parser = MultipartReplaceParser(response: response)
        else { return false }
        multipart = parser
        caching.forgoStoring()
        // A part's body may come in the very write that brought its head, with no way to wait for a
        // file being made off the loop there: the download's file is made on the loop instead.
        abandonPreparedFile()
        task.setResponse(response)
        // The body flows to the parser from now on; the parts deliver their responses.
        machine.responseWasDelivered()
        return true
    }

    /// Inside curl's write callback: body bytes through the parser. A part's head whose disposition
    /// is asked holds the rest of the write (at most one curl write, so bounded) until the answer.
    func writeParts(_ bytes: UnsafeRawBufferPointer) -> CurlTransfer.Verdict {
        if let stop = splitIntoParts(bytes) { heldPartBytes = Data(bytes[stop...]) }
        return machine.abortError == nil ? .accepted : .abort
    }

    /// After a part's disposition: the rest of the write that brought its head.
    func takeHeldPartBytes() {
        guard !heldPartBytes.isEmpty, !machine.isFinished else { return }
        let held = heldPartBytes
        heldPartBytes = Data()
        held.withUnsafeBytes { bytes in
            if let stop = splitIntoParts(bytes) { heldPartBytes = Data(bytes[stop...]) }
        }
    }

    /// Hands `bytes` to the parser and acts on each piece. Returns where it stopped to wait for a
    /// part's disposition when bytes are left, else nil (everything taken, or the task failed).
    private func splitIntoParts(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while true {
            let piece: MultipartReplaceParser.Piece?
            do {
                piece = try multipart?.next(in: bytes, at: &index)
            } catch {
                fail(error)
                return nil
            }
            guard let piece else { return nil }
            guard handle(piece, in: bytes) else { return nil }
            if machine.awaitingDecision { return index < bytes.count ? index : nil }
        }
    }

    /// False when the task cannot go on (a failed write, a part cancelled by its disposition).
    private func handle(_ piece: MultipartReplaceParser.Piece, in bytes: UnsafeRawBufferPointer) -> Bool {
        switch piece {
        case .partStarted(let response):
            do {
                try sink.startOver()
            } catch {
                fail(error)
                return false
            }
            bytesReceived = 0
            task.updateProgress { $0.bytesReceived = 0 }
            deliverFinalResponse(response)
        case .body(let range):
            return take(UnsafeRawBufferPointer(rebasing: bytes[range]))
        case .heldBody(let count):
            // Bytes held back at the end of the last write, which might have begun a delimiter.
            guard let held = multipart?.delimiterPrefix(count) else { return false }
            return held.withUnsafeBytes { take($0) }
        case .partEnded(let index, let response, let length):
            task.channel.push(.partCompleted(index: index, response: response, length: length))
        }
        return machine.abortError == nil && !machine.isFinished
    }

    /// Ends the multipart body when the response ended: the open part is complete. False when the
    /// body was no multipart body after all (the task has failed).
    func endMultipart() -> Bool {
        guard multipart != nil else { return true }
        do {
            for piece in try multipart?.finish() ?? [] {
                guard handle(piece, in: UnsafeRawBufferPointer(start: nil, count: 0)) else { break }
            }
        } catch {
            finish(error: error)
            return false
        }
        return true
    }
}
