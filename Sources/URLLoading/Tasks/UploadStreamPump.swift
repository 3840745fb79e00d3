import Foundation

/// Moves a streamed upload body from its async sequence to curl's read callback (UP-04).
///
/// curl reads synchronously on the loop thread; the stream produces asynchronously. Pieces wait
/// here, at most `highWater` bytes, the producer waiting when it is full. When curl asks and nothing
/// is here yet, the read returns `.wouldBlock` (curl pauses sending) and `wake` runs once a piece
/// arrives, to unpause.
final class UploadStreamPump: Sendable {
    static let highWater = 1 << 20

    enum ReadResult {
        case bytes(Int)
        case wouldBlock
        case end
        case failed(String)
    }

    private struct State {
        var pieces: [Data] = []
        var offsetInFirst = 0
        var buffered = 0
        var finished = false
        var failure: String?
        var producerWaiting: CheckedContinuation<Void, Never>?
        var consumerWake: (@Sendable () -> Void)?
        var cancelled = false
    }

    private let state = Locked(State())
    private let pump = Locked<Task<Void, Never>?>(nil)

    init(stream: UploadBody.Stream) {
        // The pump task keeps this object alive until the stream ends or `cancel()` stops it.
        let task = Task { [self] in
            do {
                for try await piece in stream.makeIterator() {
                    if piece.isEmpty { continue }
                    await push(piece)
                    if state.withLock({ $0.cancelled }) { return }
                }
                end(failure: nil)
            } catch {
                end(failure: "the upload stream failed: \(error)")
            }
        }
        pump.withLock { $0 = task }
    }

    /// Copies up to `buffer.count` bytes into `buffer`. On `.wouldBlock`, `wake` is called once data or
    /// the end arrives.
    func read(into buffer: UnsafeMutableRawBufferPointer, wake: @escaping @Sendable () -> Void) -> ReadResult {
        let (result, producer): (ReadResult, CheckedContinuation<Void, Never>?) = state.withLock { state in
            if let failure = state.failure { return (.failed(failure), nil) }
            var copied = 0
            while copied < buffer.count, !state.pieces.isEmpty {
                let piece = state.pieces[0]
                let available = piece.count - state.offsetInFirst
                let count = min(available, buffer.count - copied)
                piece.withUnsafeBytes { bytes in
                    let source = UnsafeRawBufferPointer(rebasing: bytes[(state.offsetInFirst)..<(state.offsetInFirst + count)])
                    UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<(copied + count)]).copyMemory(from: source)
                }
                copied += count
                state.offsetInFirst += count
                if state.offsetInFirst == piece.count {
                    state.pieces.removeFirst()
                    state.offsetInFirst = 0
                }
            }
            state.buffered -= copied
            var producer: CheckedContinuation<Void, Never>?
            if state.buffered < Self.highWater / 2 {
                producer = state.producerWaiting
                state.producerWaiting = nil
            }
            if copied > 0 { return (.bytes(copied), producer) }
            if state.finished { return (.end, producer) }
            state.consumerWake = wake
            return (.wouldBlock, producer)
        }
        producer?.resume()
        return result
    }

    /// Stops pulling from the stream (the task ended or needs a new stream).
    func cancel() {
        let producer = state.withLock { state in
            state.cancelled = true
            defer { state.producerWaiting = nil }
            return state.producerWaiting
        }
        producer?.resume()
        pump.withLock { $0?.cancel() }
    }

    private func push(_ piece: Data) async {
        let wake = state.withLock { state in
            state.pieces.append(piece)
            state.buffered += piece.count
            defer { state.consumerWake = nil }
            return state.consumerWake
        }
        wake?()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let mustWait = state.withLock { state in
                guard state.buffered >= Self.highWater, !state.cancelled else { return false }
                state.producerWaiting = continuation
                return true
            }
            if !mustWait { continuation.resume() }
        }
    }

    private func end(failure: String?) {
        let wake = state.withLock { state in
            state.finished = true
            state.failure = failure
            defer { state.consumerWake = nil }
            return state.consumerWake
        }
        wake?()
    }
}
