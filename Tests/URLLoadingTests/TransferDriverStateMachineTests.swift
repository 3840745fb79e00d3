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

    private func runningMachine(maximumRedirects: Int = 16, idleTimeout: UInt64 = 1_000) -> TransferStateMachine {
        var machine = TransferStateMachine(maximumRedirects: maximumRedirects)
        machine.start(paused: false)
        let step1 = machine.hopStarting(TransferRequest(url: url))
        #expect(step1)
        machine.hopRunning(idleTimeout: idleTimeout, now: 0)
        return machine
    }

    private func response(_ status: Int) -> TransferResponse {
        TransferResponse(url: url, statusCode: status, headers: HTTPHeaders(), httpVersion: "HTTP/1.1", expectedContentLength: nil)
    }

    @Test("a delivered response's body is written, and the hop's end finishes the task (TT-01)")
    func plainResponse() {
        var machine = runningMachine()
        let step2 = machine.headerLineArrived(now: 1)
        #expect(step2)
        machine.responseWasDelivered()
        let step3 = machine.bodyArrived(now: 2)
        #expect(step3 == .write)
        let step4 = machine.hopEnded(.completed)
        #expect(step4 == .succeed)
        let step5 = machine.finish()
        #expect(step5)
        let step6 = machine.finish()
        #expect(!step6)
        let step7 = machine.hopEnded(.completed)
        #expect(step7 == .none)
    }

    @Test("a followed redirect drops the hop's body, then starts the next hop (RD-01, RD-02, TT-06)")
    func redirectFollowed() {
        var machine = runningMachine()
        machine.decisionAsked()
        let step8 = machine.bodyArrived(now: 1)
        #expect(step8 == .pauseReceiving)
        #expect(machine.pause == [.receive])
        let step9 = machine.decisionAnswered()
        #expect(step9)
        let next = TransferRequest(url: elsewhere)
        let step10 = machine.follow(next, redirectedBy: response(302), of: TransferRequest(url: url))
        #expect(step10 == nil)
        let step11 = machine.decisionsSettled()
        #expect(step11 == .applyPause([]))
        let step12 = machine.bodyArrived(now: 2)
        #expect(step12 == .discard)
        let step13 = machine.hopEnded(.completed)
        #expect(step13 == .startNextHop(.follow(next, resendsBody: false)))
        #expect(machine.redirectCount == 1)
        let step14 = machine.hopStarting(next)
        #expect(step14)
        machine.responseWasDelivered()
        let step15 = machine.bodyArrived(now: 3)
        #expect(step15 == .write)
        let step16 = machine.hopEnded(.completed)
        #expect(step16 == .succeed)
    }

    @Test("a 307 that keeps the method sends the body again (RD-02, UP-05)")
    func redirectResendsBody() {
        var machine = runningMachine()
        let post = TransferRequest(url: url, method: "POST")
        let next = TransferRequest(url: elsewhere, method: "POST")
        let step17 = machine.follow(next, redirectedBy: response(307), of: post)
        #expect(step17 == nil)
        let step18 = machine.hopEnded(.completed)
        #expect(step18 == .startNextHop(.follow(next, resendsBody: true)))
    }

    @Test("a redirect back to a requested URL is a loop; one to another scheme is unsupported (RD-04)")
    func redirectRefusedByPolicy() {
        var machine = runningMachine()
        let loop = machine.follow(TransferRequest(url: url), redirectedBy: response(302), of: TransferRequest(url: url))
        #expect(loop?.code == .tooManyRedirects)
        let ftp = machine.follow(
            TransferRequest(url: URL(string: "ftp://origin.test/")!), redirectedBy: response(302), of: TransferRequest(url: url))
        #expect(ftp?.code == .redirectToUnsupportedURL)
        #expect(machine.nextHop == nil)
    }

    @Test("no more redirects than the session allows (RD-04)")
    func redirectLimit() {
        var machine = runningMachine(maximumRedirects: 1)
        #expect(machine.mayRedirect)
        let next = TransferRequest(url: elsewhere)
        _ = machine.follow(next, redirectedBy: response(302), of: TransferRequest(url: url))
        _ = machine.hopEnded(.completed)
        #expect(!machine.mayRedirect)
    }

    @Test("a refused redirect is the task's response: its body flows once the answer came (RD-02)")
    func redirectRefused() {
        var machine = runningMachine()
        machine.decisionAsked()
        let step19 = machine.bodyArrived(now: 1)
        #expect(step19 == .pauseReceiving)
        let step20 = machine.decisionAnswered()
        #expect(step20)
        machine.responseWasDelivered()
        let step21 = machine.decisionsSettled()
        #expect(step21 == .applyPause([]))
        let step22 = machine.bodyArrived(now: 2)
        #expect(step22 == .write)
        let step23 = machine.hopEnded(.completed)
        #expect(step23 == .succeed)
    }

    @Test("an answered challenge retries the request with the credential (AU-08, AU-12)")
    func authenticationRetry() {
        var machine = runningMachine()
        machine.decisionAsked()
        let step24 = machine.hopEnded(.completed)
        #expect(step24 == .none, "the end waits for the answer")
        let step25 = machine.decisionAnswered()
        #expect(step25)
        machine.continueWith(.retryWithCredential)
        let step26 = machine.decisionsSettled()
        #expect(step26 == .startNextHop(.retryWithCredential))
        let step27 = machine.hopStarting(TransferRequest(url: url))
        #expect(step27)
        machine.responseWasDelivered()
        let step28 = machine.hopEnded(.completed)
        #expect(step28 == .succeed)
    }

    @Test("a refused tunnel ends the hop with the proxy's head; a 407 challenge then retries (AU-08, AU-13)")
    func tunnelRefusal() {
        var machine = runningMachine()
        let head = ResponseHeadParser.Head(statusCode: 407, httpVersion: "HTTP/1.1", headers: HTTPHeaders(), contentLength: 0)
        machine.tunnelRefused(head)
        let step29 = machine.hopEnded(.failed(failure, refusedByPolicy: false))
        #expect(step29 == .tunnelRefused(head, failure))
        #expect(machine.tunnelRefusal == nil)
        machine.continueWith(.retryWithCredential)
        let step30 = machine.hopEnded(.completed)
        #expect(step30 == .startNextHop(.retryWithCredential))
        let step31 = machine.hopStarting(TransferRequest(url: url))
        #expect(step31)
        let step32 = machine.hopEnded(.failed(failure, refusedByPolicy: false))
        #expect(step32 == .hopFailed(failure, refusedByPolicy: false))
    }

    @Test("a resumed request answered with 416 starts over without Range, its body dropped (DL-09)")
    func resumeRestartOn416() {
        var machine = runningMachine()
        let fromTheStart = TransferRequest(url: url)
        machine.continueWith(.restartWithoutRange(fromTheStart))
        let step33 = machine.bodyArrived(now: 1)
        #expect(step33 == .discard)
        let step34 = machine.hopEnded(.completed)
        #expect(step34 == .startNextHop(.restartWithoutRange(fromTheStart)))
        #expect(machine.nextHop == nil)
        #expect(machine.redirectCount == 0)
    }

    @Test("curl finishing the hop while a decision is pending waits for the answer (AU-21, LC-16)")
    func decisionPendingWhenHopEnds() {
        var machine = runningMachine()
        machine.responseWasDelivered()
        machine.decisionAsked()
        let step35 = machine.hopEnded(.completed)
        #expect(step35 == .none)
        #expect(machine.endedHop == .completed)
        let step36 = machine.decisionAnswered()
        #expect(step36)
        let step37 = machine.decisionsSettled()
        #expect(step37 == .succeed)
        #expect(machine.endedHop == nil)
    }

    @Test("a response not yet delivered at the hop's end (ftp, file) is delivered first (PR-01)")
    func deliverAtEnd() {
        var machine = runningMachine()
        let step38 = machine.hopEnded(.completed)
        #expect(step38 == .deliverResponse)
        machine.responseWasDelivered()
        let step39 = machine.hopEnded(.completed)
        #expect(step39 == .succeed)
        var streamed = runningMachine()
        let step40 = streamed.bodyArrived(now: 1)
        #expect(step40 == .deliverResponse)
    }

    @Test("a failure inside a callback aborts the hop, and its end becomes the error (ER-04)")
    func abortInsideCallback() {
        var machine = runningMachine()
        let step41 = machine.fail(failure, insideCallback: true)
        #expect(step41 == .none)
        let step42 = machine.headerLineArrived(now: 1)
        #expect(!step42)
        let step43 = machine.bodyArrived(now: 1)
        #expect(step43 == .abort)
        let step44 = machine.uploadProgressed(to: 10, now: 1)
        #expect(!step44)
        let step45 = machine.hopEnded(.failed(TransferError(.unknown, "write error"), refusedByPolicy: false))
        #expect(step45 == .finish(failure))
        let step46 = machine.fail(failure, insideCallback: false)
        #expect(step46 == .stopHopAndFinish(failure))
    }

    @Test("the idle timeout fires only while nothing of ours holds the transfer (LC-22)")
    func idleTimeout() {
        var machine = runningMachine(idleTimeout: 100)
        let step47 = machine.timerFired(now: 50, url: url)
        #expect(step47 == .none)
        let step48 = machine.bodyArrived(now: 80)
        #expect(step48 == .deliverResponse)
        let step49 = machine.timerFired(now: 150, url: url)
        #expect(step49 == .none, "data moved at 80")
        _ = machine.setUserPaused(true)
        let step50 = machine.timerFired(now: 1_000, url: url)
        #expect(step50 == .none, "suspended: the clock stands still")
        _ = machine.setUserPaused(false)
        let step51 = machine.timerFired(now: 1_050, url: url)
        #expect(step51 == .none)
        machine.decisionAsked()
        let step52 = machine.timerFired(now: 5_000, url: url)
        #expect(step52 == .none, "deciding: the clock stands still")
        _ = machine.decisionAnswered()
        guard case .stopHopAndFinish(let error) = machine.timerFired(now: 5_101, url: url) else {
            Issue.record("no timeout")
            return
        }
        #expect(error.code == .timedOut)
    }

    @Test("upload progress counts as activity only when bytes moved (LC-22)")
    func uploadActivity() {
        var machine = runningMachine(idleTimeout: 100)
        let step53 = machine.uploadProgressed(to: 10, now: 90)
        #expect(step53)
        let step54 = machine.uploadProgressed(to: 10, now: 500)
        #expect(step54)
        let step55 = machine.timerFired(now: 191, url: url)
        #expect(step55 != .none)
    }

    @Test("cancel stops the hop and ends the task once; nothing happens after (LC-15, ER-07)")
    func cancel() {
        var machine = runningMachine()
        let step56 = machine.cancel(url: url)
        #expect(step56 == .stopHopAndFinish(.cancelled(url)))
        let step57 = machine.finish()
        #expect(step57)
        let step58 = machine.cancel(url: url)
        #expect(step58 == .none)
        let step59 = machine.setUserPaused(true)
        #expect(step59 == .none)
        let step60 = machine.decisionAnswered()
        #expect(!step60)
        let step61 = machine.hopStarting(TransferRequest(url: url))
        #expect(!step61)
        let step62 = machine.timerFired(now: 10_000, url: url)
        #expect(step62 == .none)
    }

    @Test("pauses: the user's holds both directions; the consumer's and the upload's one each (LC-02, LC-12, UP-04)")
    func pauses() {
        var machine = TransferStateMachine(maximumRedirects: 16)
        machine.start(paused: true)
        #expect(machine.pause == [.receive, .send])
        let step63 = machine.setUserPaused(false)
        #expect(step63 == .applyPause([]))
        machine.consumerFellBehind()
        machine.uploadStarved()
        #expect(machine.pause == [.receive, .send])
        let step64 = machine.consumerCaughtUp()
        #expect(step64 == .applyPause([.send]))
        let step65 = machine.uploadDataArrived()
        #expect(step65 == .applyPause([]))
    }
}
