import Foundation
import Testing
@testable import URLLoading

/// The transfer driver's state machine on its own, without sockets: the order of hops, decisions,
/// pauses and endings that `TaskTransfer` carries out.
@Suite("Transfer driver state machine")
struct TransferDriverStateMachineTests {
    let url = URL(string: "https://origin.test/file")!
    let elsewhere = URL(string: "https://origin.test/elsewhere")!
    let failure = TransferError(.networkConnectionLost, "the network connection was lost")

    /// A machine behind a reference: `#expect` evaluates its expression in a closure, where a local
    /// value could not be mutated.
    final class Transfer {
        var machine: TransferStateMachine
        init(_ machine: TransferStateMachine) { self.machine = machine }

        /// Sends one event and returns what the machine answered.
        func send<Answer>(_ event: (inout TransferStateMachine) -> Answer) -> Answer {
            event(&machine)
        }
    }

    /// A transfer whose first hop runs, with an idle timeout of `idleTimeout` ms from time 0.
    private func runningTransfer(maximumRedirects: Int = 16, idleTimeout: UInt64 = 1_000) -> Transfer {
        let transfer = Transfer(TransferStateMachine(maximumRedirects: maximumRedirects))
        transfer.machine.start(paused: false)
        #expect(transfer.send { $0.hopStarting(TransferRequest(url: url)) })
        transfer.machine.hopRunning(idleTimeout: idleTimeout, now: 0)
        return transfer
    }

    private func response(_ status: Int) -> TransferResponse {
        TransferResponse(url: url, statusCode: status, headers: HTTPHeaders(), httpVersion: "HTTP/1.1", expectedContentLength: nil)
    }

    @Test("a delivered response's body is written, and the hop's end finishes the task (TT-01)")
    func plainResponse() {
        let transfer = runningTransfer()
        #expect(transfer.send { $0.headerLineArrived(now: 1) })
        transfer.machine.responseWasDelivered()
        #expect(transfer.send { $0.bodyArrived(now: 2) } == .write)
        #expect(transfer.send { $0.hopEnded(.completed) } == .succeed)
        #expect(transfer.send { $0.finish() })
        #expect(!transfer.send { $0.finish() })
        #expect(transfer.send { $0.hopEnded(.completed) } == .none)
    }

    @Test("a followed redirect drops the hop's body, then starts the next hop (RD-01, RD-02, TT-06)")
    func redirectFollowed() {
        let transfer = runningTransfer()
        transfer.machine.decisionAsked()
        #expect(transfer.send { $0.bodyArrived(now: 1) } == .pauseReceiving)
        #expect(transfer.machine.pause == [.receive])
        #expect(transfer.send { $0.decisionAnswered() })
        let next = TransferRequest(url: elsewhere)
        #expect(transfer.send { $0.follow(next, redirectedBy: response(302), of: TransferRequest(url: url)) } == nil)
        #expect(transfer.send { $0.decisionsSettled() } == .applyPause([]))
        #expect(transfer.send { $0.bodyArrived(now: 2) } == .discard)
        #expect(transfer.send { $0.hopEnded(.completed) } == .startNextHop(.follow(next, resendsBody: false)))
        #expect(transfer.machine.redirectCount == 1)
        #expect(transfer.send { $0.hopStarting(next) })
        transfer.machine.responseWasDelivered()
        #expect(transfer.send { $0.bodyArrived(now: 3) } == .write)
        #expect(transfer.send { $0.hopEnded(.completed) } == .succeed)
    }

    @Test("a 307 that keeps the method sends the body again (RD-02, UP-05)")
    func redirectResendsBody() {
        let transfer = runningTransfer()
        let post = TransferRequest(url: url, method: "POST")
        let next = TransferRequest(url: elsewhere, method: "POST")
        #expect(transfer.send { $0.follow(next, redirectedBy: response(307), of: post) } == nil)
        #expect(transfer.send { $0.hopEnded(.completed) } == .startNextHop(.follow(next, resendsBody: true)))
    }

    @Test("a redirect back to a requested URL is a loop; one to another scheme is unsupported (RD-04)")
    func redirectRefusedByPolicy() {
        let transfer = runningTransfer()
        let loop = transfer.machine.follow(TransferRequest(url: url), redirectedBy: response(302), of: TransferRequest(url: url))
        #expect(loop?.code == .tooManyRedirects)
        let ftp = transfer.machine.follow(
            TransferRequest(url: URL(string: "ftp://origin.test/")!), redirectedBy: response(302), of: TransferRequest(url: url))
        #expect(ftp?.code == .redirectToUnsupportedURL)
        #expect(transfer.machine.nextHop == nil)
    }

    @Test("a redirect to a scheme a custom protocol loads is followed (PR-04, PR-06)")
    func redirectToCustomProtocol() {
        let transfer = runningTransfer()
        let memo = TransferRequest(url: URL(string: "memo:///notes/today")!)
        #expect(transfer.machine.follow(memo, redirectedBy: response(301), of: TransferRequest(url: url), loadedByProtocol: true) == nil)
        #expect(transfer.machine.nextHop == .follow(memo, resendsBody: false))
    }

    @Test("no more redirects than the session allows (RD-04)")
    func redirectLimit() {
        let transfer = runningTransfer(maximumRedirects: 1)
        #expect(transfer.machine.mayRedirect)
        let next = TransferRequest(url: elsewhere)
        _ = transfer.machine.follow(next, redirectedBy: response(302), of: TransferRequest(url: url))
        _ = transfer.machine.hopEnded(.completed)
        #expect(!transfer.machine.mayRedirect)
    }

    @Test("a refused redirect is the task's response: its body flows once the answer came (RD-02)")
    func redirectRefused() {
        let transfer = runningTransfer()
        transfer.machine.decisionAsked()
        #expect(transfer.send { $0.bodyArrived(now: 1) } == .pauseReceiving)
        #expect(transfer.send { $0.decisionAnswered() })
        transfer.machine.responseWasDelivered()
        #expect(transfer.send { $0.decisionsSettled() } == .applyPause([]))
        #expect(transfer.send { $0.bodyArrived(now: 2) } == .write)
        #expect(transfer.send { $0.hopEnded(.completed) } == .succeed)
    }

    @Test("an answered challenge retries the request with the credential (AU-08, AU-12)")
    func authenticationRetry() {
        let transfer = runningTransfer()
        transfer.machine.decisionAsked()
        #expect(transfer.send { $0.hopEnded(.completed) } == .none, "the end waits for the answer")
        #expect(transfer.send { $0.decisionAnswered() })
        transfer.machine.continueWith(.retryWithCredential)
        #expect(transfer.send { $0.decisionsSettled() } == .startNextHop(.retryWithCredential))
        #expect(transfer.send { $0.hopStarting(TransferRequest(url: url)) })
        transfer.machine.responseWasDelivered()
        #expect(transfer.send { $0.hopEnded(.completed) } == .succeed)
    }

    @Test("a refused tunnel ends the hop with the proxy's head; a 407 challenge then retries (AU-08, AU-13)")
    func tunnelRefusal() {
        let transfer = runningTransfer()
        let head = ResponseHeadParser.Head(statusCode: 407, httpVersion: "HTTP/1.1", headers: HTTPHeaders(), contentLength: 0)
        transfer.machine.tunnelRefused(head)
        #expect(transfer.send { $0.hopEnded(.failed(failure, refusedByPolicy: false)) } == .tunnelRefused(head, failure))
        #expect(transfer.machine.tunnelRefusal == nil)
        transfer.machine.continueWith(.retryWithCredential)
        #expect(transfer.send { $0.hopEnded(.completed) } == .startNextHop(.retryWithCredential))
        #expect(transfer.send { $0.hopStarting(TransferRequest(url: url)) })
        #expect(transfer.send { $0.hopEnded(.failed(failure, refusedByPolicy: false)) } == .hopFailed(failure, refusedByPolicy: false))
    }

    @Test("a resumed request answered with 416 (or a 206 that does not fit) starts over without Range, its hop stopped rather than read to the end (DL-09, DL-10)")
    func resumeRestartOn416() {
        let transfer = runningTransfer()
        let fromTheStart = TransferRequest(url: url)
        transfer.machine.continueWith(.restartWithoutRange(fromTheStart))
        #expect(transfer.machine.dropsHop)
        #expect(transfer.send { $0.bodyArrived(now: 1) } == .dropHop)
        // curl ends the stopped hop with a write error: the restart still follows.
        let stopped = TransferError(.cannotWriteToFile, "the response body could not be written")
        #expect(transfer.send { $0.hopEnded(.failed(stopped, refusedByPolicy: false)) } == .startNextHop(.restartWithoutRange(fromTheStart)))
        #expect(transfer.machine.nextHop == nil)
        #expect(transfer.machine.redirectCount == 0)
    }

    @Test("curl finishing the hop while a decision is pending waits for the answer (AU-21, LC-16)")
    func decisionPendingWhenHopEnds() {
        let transfer = runningTransfer()
        transfer.machine.responseWasDelivered()
        transfer.machine.decisionAsked()
        #expect(transfer.send { $0.hopEnded(.completed) } == .none)
        #expect(transfer.machine.endedHop == .completed)
        #expect(transfer.send { $0.decisionAnswered() })
        #expect(transfer.send { $0.decisionsSettled() } == .succeed)
        #expect(transfer.machine.endedHop == nil)
    }

    @Test("a response not yet delivered at the hop's end (ftp, file) is delivered first (PR-01)")
    func deliverAtEnd() {
        let transfer = runningTransfer()
        #expect(transfer.send { $0.hopEnded(.completed) } == .deliverResponse)
        transfer.machine.responseWasDelivered()
        #expect(transfer.send { $0.hopEnded(.completed) } == .succeed)
        let streamed = runningTransfer()
        #expect(streamed.send { $0.bodyArrived(now: 1) } == .deliverResponse)
    }

    @Test("a response delivered at the hop's end may ask a decision: the end waits for it (LC-08, AU-21)")
    func deliverAtEndThenDecide() {
        let transfer = runningTransfer()
        #expect(transfer.send { $0.hopEnded(.completed) } == .deliverResponse)
        transfer.machine.responseWasDelivered()
        transfer.machine.decisionAsked()
        #expect(transfer.send { $0.hopEnded(.completed) } == .none)
        #expect(transfer.send { $0.decisionAnswered() })
        #expect(transfer.send { $0.decisionsSettled() } == .succeed)
    }

    @Test("a failure inside a callback aborts the hop, and its end becomes the error (ER-04)")
    func abortInsideCallback() {
        let transfer = runningTransfer()
        #expect(transfer.send { $0.fail(failure, insideCallback: true) } == .none)
        #expect(!transfer.send { $0.headerLineArrived(now: 1) })
        #expect(transfer.send { $0.bodyArrived(now: 1) } == .abort)
        #expect(!transfer.send { $0.uploadProgressed(to: 10, now: 1) })
        #expect(transfer.send { $0.hopEnded(.failed(TransferError(.unknown, "write error"), refusedByPolicy: false)) } == .finish(failure))
        #expect(transfer.send { $0.fail(failure, insideCallback: false) } == .stopHopAndFinish(failure))
    }

    @Test("the idle timeout fires only while nothing of ours holds the transfer (LC-22)")
    func idleTimeout() {
        let transfer = runningTransfer(idleTimeout: 100)
        #expect(transfer.send { $0.timerFired(now: 50, url: url) } == .none)
        #expect(transfer.send { $0.bodyArrived(now: 80) } == .deliverResponse)
        #expect(transfer.send { $0.timerFired(now: 150, url: url) } == .none, "data moved at 80")
        _ = transfer.machine.setUserPaused(true)
        #expect(transfer.send { $0.timerFired(now: 1_000, url: url) } == .none, "suspended: the clock stands still")
        _ = transfer.machine.setUserPaused(false)
        #expect(transfer.send { $0.timerFired(now: 1_050, url: url) } == .none)
        transfer.machine.decisionAsked()
        #expect(transfer.send { $0.timerFired(now: 5_000, url: url) } == .none, "deciding: the clock stands still")
        _ = transfer.machine.decisionAnswered()
        guard case .stopHopAndFinish(let error) = transfer.machine.timerFired(now: 5_101, url: url) else {
            Issue.record("no timeout")
            return
        }
        #expect(error.code == .timedOut)
    }

    @Test("upload progress counts as activity only when bytes moved (LC-22)")
    func uploadActivity() {
        let transfer = runningTransfer(idleTimeout: 100)
        #expect(transfer.send { $0.uploadProgressed(to: 10, now: 90) })
        #expect(transfer.send { $0.uploadProgressed(to: 10, now: 500) })
        #expect(transfer.send { $0.timerFired(now: 191, url: url) } != .none)
    }

    @Test("cancel stops the hop and ends the task once; nothing happens after (LC-15, ER-07)")
    func cancel() {
        let transfer = runningTransfer()
        #expect(transfer.send { $0.cancel(url: url) } == .stopHopAndFinish(.cancelled(url)))
        #expect(transfer.send { $0.finish() })
        #expect(transfer.send { $0.cancel(url: url) } == .none)
        #expect(transfer.send { $0.setUserPaused(true) } == .none)
        #expect(!transfer.send { $0.decisionAnswered() })
        #expect(!transfer.send { $0.hopStarting(TransferRequest(url: url)) })
        #expect(transfer.send { $0.timerFired(now: 10_000, url: url) } == .none)
    }

    @Test("pauses: the user's holds both directions; the consumer's and the upload's one each (LC-02, LC-12, UP-04)")
    func pauses() {
        let transfer = Transfer(TransferStateMachine(maximumRedirects: 16))
        transfer.machine.start(paused: true)
        #expect(transfer.machine.pause == [.receive, .send])
        #expect(transfer.send { $0.setUserPaused(false) } == .applyPause([]))
        transfer.machine.consumerFellBehind()
        transfer.machine.uploadStarved()
        #expect(transfer.machine.pause == [.receive, .send])
        #expect(transfer.send { $0.consumerCaughtUp() } == .applyPause([.send]))
        #expect(transfer.send { $0.uploadDataArrived() } == .applyPause([]))
    }
}
