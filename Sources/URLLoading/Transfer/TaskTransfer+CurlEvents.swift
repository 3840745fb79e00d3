import Foundation

/// What curl reports, turned into the machine's events; body bytes go to the sink here, on the loop
/// thread inside curl's write callback, with nothing copied on the way.
extension TaskTransfer: CurlTransferEvents {
    func curlHeaderLineArrived() -> Bool {
        machine.headerLineArrived(now: CurlLoop.nowMilliseconds())
    }

    func curlHeadArrived(_ head: ResponseHeadParser.Head) -> Bool {
        headDidComplete(head)
        return machine.abortError == nil && !machine.dropsHop
    }

    func curlTunnelRefused(_ head: ResponseHeadParser.Head) {
        machine.tunnelRefused(head)
    }

    func curlBodyArrived(_ bytes: UnsafeRawBufferPointer) -> CurlTransfer.Verdict {
        var step = machine.bodyArrived(now: CurlLoop.nowMilliseconds())
        if case .deliverResponse = step {
            deliverNonHTTPResponse(bodyStarted: true)
            step = machine.bodyArrived(now: CurlLoop.nowMilliseconds())
        }
        switch step {
        case .write: return write(bytes)
        case .discard:
            caching.receivedUndelivered(bytes)
            return .accepted
        case .pauseReceiving: return .pause
        default: return .abort
        }
    }

    /// Body bytes to the sink, unless it cannot take them yet (`.pause`: the transfer resumes once it can).
    func write(_ bytes: UnsafeRawBufferPointer) -> CurlTransfer.Verdict {
        if sinkFellBehind() {
            machine.consumerFellBehind()
            return .pause
        }
        if multipart != nil { return writeParts(bytes) }
        return take(bytes) ? .accepted : .abort
    }

    /// Writes body bytes to the sink and counts them; false when the sink failed (the hop is aborted).
    func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do {
            try sink.write(bytes)
        } catch {
            machine.abort(error)
            return false
        }
        caching.received(bytes, into: sink)
        bytesReceived += Int64(bytes.count)
        let received = bytesReceived
        task.updateProgress { $0.bytesReceived = received }
        emitProgressIfDue()
        return true
    }

    /// Whether the body cannot be taken yet: a streamed body's consumer is behind, the hashing of a
    /// download that asked for its digest is, or the download's file is still being made. The
    /// transfer resumes once it caught up.
    private func sinkFellBehind() -> Bool {
        let relieve: () -> @Sendable () -> Void = { { [self] in post { $0.perform($0.machine.consumerCaughtUp()) } } }
        switch sink {
        case .stream(let channel): return !channel.reserveCapacity(orCallWhenDrained: relieve())
        case .file(let file, _):
            // curl reads a file: URL in one go, paused or not: its hash catches up afterwards.
            return request.url.scheme?.lowercased() != "file" && !file.hashingKeepsUp(orCallWhenCaughtUp: relieve())
        case .none: return awaitsPreparedFile(then: relieve())
        case .collect: return false
        }
    }

    func curlReadBody(into buffer: UnsafeMutableRawBufferPointer) -> CurlTransfer.ReadVerdict {
        guard let body else { return .end }
        switch body.read(into: buffer, wake: { [self] in post { $0.perform($0.machine.uploadDataArrived()) } }) {
        case .bytes(let count): return .bytes(count)
        case .end: return .end
        case .wouldBlock:
            machine.uploadStarved()
            return .pause
        case .failed(let message):
            machine.abort(TransferError(.cannotReadUploadBody, message, failingURL: request.url))
            return .abort
        }
    }

    func curlSeekBody(to offset: Int64) -> Bool {
        body?.seek(to: offset) ?? false
    }

    /// curl calls this on every pass over the transfer, nearly always with nothing new (always, for a
    /// download): the task's progress, behind its lock, is written only when what it says changed.
    func curlUploadProgressed(_ uploaded: Int64) -> Bool {
        guard machine.uploadProgressed(to: uploaded, now: CurlLoop.nowMilliseconds()) else { return false }
        let expected = body?.length
        if reportedUpload?.sent != uploaded || reportedUpload?.expected != expected {
            reportedUpload = (uploaded, expected)
            task.updateProgress { progress in
                progress.bytesSent = uploaded
                progress.totalBytesExpectedToSend = expected
            }
        }
        emitProgressIfDue()
        return true
    }

    func curlHopMeasured(_ metrics: TransactionMetrics) {
        task.recordTransaction(metrics)
        task.session.engineMetrics.record(metrics)
    }

    func curlHopEnded(failure: TransferError?, refusedByPolicy: Bool) {
        perform(machine.hopEnded(failure.map { .failed($0, refusedByPolicy: refusedByPolicy) } ?? .completed))
    }

    func curlIdleCheck(now: UInt64) {
        perform(machine.timerFired(now: now, url: request.url))
    }

    func curlLoopShutDown() {
        finish(error: TransferError(.cancelled, "the transfer loop shut down", failingURL: request.url))
    }
}
