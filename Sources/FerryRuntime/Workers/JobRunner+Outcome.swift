import FerryModel
import FerryStore
import Foundation
import URLLoading

extension JobRunner {
    /// What the engine said about a final 401: not asked yet, or its answer (nil: nothing to add).
    enum UnauthorizedExplanation {
        case notAsked
        case asked(AuthenticationRefusal?)
    }

    /// The attempt's end as judged from what it saw, or the 401 that needs the engine first.
    enum Verdict {
        case completion(JobQueue.Completion?)
        case needsExplanation(TransferResponse)
    }

    /// How the attempt ended; nil when its lease was lost.
    ///
    /// Only a final 401 asks the engine anything (which stored credential was refused); the judging
    /// itself is synchronous and kept out of line, so that its many values live on the thread's
    /// stack while it runs rather than in the attempt's async frame: a task keeps the memory of its
    /// deepest frames until it ends, and a thousand jobs run at once (bench P5).
    func outcome(of task: DownloadTask, observed: Observed, decisions: JobDecisionMaker?, transfer: RunningTransfer) async -> JobQueue.Completion? {
        switch verdict(of: task, observed: observed, decisions: decisions, transfer: transfer, unauthorized: .notAsked) {
        case .completion(let completion):
            return completion
        case .needsExplanation(let final):
            let answer = await engine.explainUnauthorized(final, for: sessionOwner)
            switch verdict(of: task, observed: observed, decisions: decisions, transfer: transfer, unauthorized: .asked(answer)) {
            case .completion(let completion): return completion
            case .needsExplanation: preconditionFailure("a verdict given the engine's answer asks for it again")
            }
        }
    }

    @inline(never)
    private func verdict(
        of task: DownloadTask, observed: Observed, decisions: JobDecisionMaker?, transfer: RunningTransfer, unauthorized: UnauthorizedExplanation
    ) -> Verdict {
        let response = (task.response ?? observed.response).map(Self.stored)
        let resumeData = task.error?.resumeData.flatMap { try? $0.jsonData() }.map { String(decoding: $0, as: UTF8.self) }
        var progress = progressNow(transfer)

        switch transfer.stopReason {
        case .leaseLost?:
            return .completion(nil)
        case .pause?:
            return .completion(JobQueue.Completion(.pause, attemptOutcome: "paused", progress: progress, response: response, resumeData: resumeData))
        case .shutdown?, .yield?:
            return .completion(JobQueue.Completion(.release, attemptOutcome: "interrupted", progress: progress, response: response, resumeData: resumeData))
        case .cancel?:
            task.error?.resumeData?.removePartialFile()
            return .completion(JobQueue.Completion(
                .cancel, attemptOutcome: "cancelled", progress: progress, response: response,
                errorCode: "cancelled", errorMessage: "cancelled through the API"))
        case .totalTimeout?:
            return .completion(finished(
                AttemptFailure("timed_out", "the job took longer than its total timeout of \(job.policies.totalTimeout ?? 0) s",
                               retry: .transfer(.timedOut)),
                transfer: transfer, response: response, resumeData: resumeData))
        case .storageQuota?:
            let bytes = max(progress.bytesDone, progress.bytesExpected ?? 0)
            return .completion(finished(
                transfer.storageQuota.map { Self.quotaFailure($0, bytes: bytes) }
                    ?? AttemptFailure("storage_quota_exceeded", "the job's content does not fit in the tenant's storage quota"),
                transfer: transfer, response: response, resumeData: resumeData))
        case nil:
            break
        }

        switch decisions?.stop {
        case .asked(let decision)?:
            // The partial file of an earlier attempt stays for the attempt after the answer, and the
            // job's progress says how much of it there is (this attempt stopped before any body).
            progress.bytesDone = max(progress.bytesDone, job.bytesDone)
            progress.bytesExpected = progress.bytesExpected ?? job.bytesExpected
            return .completion(JobQueue.Completion(
                .awaitDecision, attemptOutcome: "waiting_for_decision", progress: progress, response: response,
                resumeData: resumeData ?? job.resumeData, decision: decision, decisionTimeoutSeconds: decisions?.policy.timeout))
        case .failed(let code, let message)?:
            return .completion(finished(AttemptFailure(code, message), transfer: transfer, response: response, resumeData: resumeData ?? job.resumeData))
        case nil:
            break
        }

        if let error = task.error {
            var code = error.code.rawValue
            var message = error.message
            if error.code == .tooManyRedirects, !job.policies.followRedirects {
                code = "redirect_not_followed"
                message = "the server redirected and the job's redirects.follow is false"
            }
            if error.code == .userAuthenticationRequired {
                // The engine gave up on a space after its cap of rejected credentials (AU-20).
                code = "authentication_failed"
                message = "authentication failed: \(error.message)"
            }
            if error.code == .resourceUnavailable, task.originalRequest.cachePolicy == .returnCacheDataDontLoad {
                code = "not_in_cache"
                message = "cache_policy is return_cache_dont_load and no cached response matches the request"
            }
            return .completion(finished(AttemptFailure(code, message, retry: .transfer(error.code)), transfer: transfer, response: response, resumeData: resumeData))
        }
        guard let final = task.response else {
            return .completion(finished(AttemptFailure("bad_server_response", "the transfer ended without a response"), transfer: transfer, response: nil, resumeData: nil))
        }
        if final.statusCode == 401 {
            guard case .asked(let refusal) = unauthorized else { return .needsExplanation(final) }
            // A stored credential was refused (tried once: default handling never proposes a credential
            // its space just rejected, AU-19), or could not be opened: say which, not just "401".
            if let refusal {
                return .completion(finished(
                    AttemptFailure(refusal.code, refusal.message, retry: .httpStatus(401, retryAfter: nil), httpStatus: 401),
                    transfer: transfer, response: response, resumeData: nil))
            }
        }
        if let status = final.statusCode, (300..<400).contains(status), let target = decisions?.refusedRedirect {
            return .completion(finished(
                AttemptFailure("redirect_refused", "the answer to the redirect decision refused the redirect to \(target)", httpStatus: status),
                transfer: transfer, response: response, resumeData: nil))
        }
        if let status = final.statusCode, !final.isSuccess {
            return .completion(finished(
                AttemptFailure("http_error", "the server answered \(status)", retry: .httpStatus(status, retryAfter: final.headers["Retry-After"]), httpStatus: status),
                transfer: transfer, response: response, resumeData: nil))
        }
        if let failure = observed.placeFailure {
            return .completion(finished(failure, transfer: transfer, response: response, resumeData: nil))
        }
        guard let result = observed.placed else {
            return .completion(finished(AttemptFailure("bad_server_response", "the transfer produced no content"), transfer: transfer, response: response, resumeData: nil))
        }
        progress.bytesDone = result.size
        return .completion(JobQueue.Completion(.succeed, attemptOutcome: "succeeded", progress: progress, response: response, result: result))
    }

    /// A failed attempt: retried after a backoff while attempts remain and the failure is worth it,
    /// else the job fails (its partial file goes then). Out of line: `attempt` calls it too.
    @inline(never)
    func finished(
        _ failure: AttemptFailure, transfer: RunningTransfer, response: JobRecord.StoredResponse?, resumeData: String?
    ) -> JobQueue.Completion {
        let policy = RetryPolicy(
            maxAttempts: job.maxAttempts, baseDelay: retryBaseDelay,
            networkRetriesUntil: job.policies.retryNetworkErrorsUntil.flatMap { try? Date($0, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) })
        let attemptNumber = claim.earlierFailures + 1
        let delay = failure.retry.flatMap { policy.delayBeforeRetry(after: $0, attempt: attemptNumber) }
        if delay == nil, let resumeData, let data = try? ResumeData(jsonData: Data(resumeData.utf8)) {
            data.removePartialFile()
        }
        return JobQueue.Completion(
            delay == nil ? .fail : .retry, attemptOutcome: delay == nil ? "failed" : "retrying",
            progress: progressNow(transfer), response: response, errorCode: failure.code, errorMessage: failure.message,
            resumeData: delay == nil ? nil : resumeData, retryDelay: delay, httpStatus: failure.httpStatus)
    }

    func progressNow(_ transfer: RunningTransfer) -> JobQueue.Progress {
        let progress = transfer.progress
        return JobQueue.Progress(bytesDone: progress.bytesReceived, bytesExpected: progress.totalBytesExpectedToReceive, bytesPerSecond: nil)
    }

    static func stored(_ response: TransferResponse) -> JobRecord.StoredResponse {
        JobRecord.StoredResponse(
            status: response.statusCode,
            headers: response.headers.map { JobSpecification.Header(name: $0.name, value: $0.value) },
            url: response.url.absoluteString)
    }
}
