@testable import FerryModel
import Foundation
import Testing

@Suite("Job retry policy")
struct JobRetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 4, baseDelay: .seconds(2), maximumDelay: .seconds(60))

    @Test("network errors, 5xx, 429 and 408 retry; other 4xx and policy refusals do not (ER-13)")
    func whatRetries() {
        #expect(RetryPolicy.isRetryable(.httpStatus(503, retryAfter: nil)))
        #expect(RetryPolicy.isRetryable(.httpStatus(429, retryAfter: nil)))
        #expect(RetryPolicy.isRetryable(.transfer(.networkConnectionLost)))
        #expect(RetryPolicy.isRetryable(.transfer(.timedOut)))
        #expect(!RetryPolicy.isRetryable(.httpStatus(404, retryAfter: nil)))
        #expect(!RetryPolicy.isRetryable(.httpStatus(401, retryAfter: nil)))
        #expect(!RetryPolicy.isRetryable(.transfer(.destinationForbidden)))
        #expect(!RetryPolicy.isRetryable(.transfer(.tooManyRedirects)))
        #expect(!RetryPolicy.isRetryable(.transfer(.cancelled)))
        #expect(!RetryPolicy.isRetryable(.transfer(.insufficientStorage)), "a full disk fails the job at once")
    }

    @Test("delays double from the base with jitter, are capped, and stop at max attempts")
    func backoff() {
        let failure = RetryPolicy.AttemptFailure.transfer(.networkConnectionLost)
        #expect(policy.delayBeforeRetry(after: failure, attempt: 1, random: { 0 }) == .seconds(1))
        #expect(policy.delayBeforeRetry(after: failure, attempt: 1, random: { 0.999999 })! < .seconds(2))
        #expect(policy.delayBeforeRetry(after: failure, attempt: 3, random: { 0 }) == .seconds(4))
        #expect(RetryPolicy(maxAttempts: 50).delayBeforeRetry(after: failure, attempt: 40, random: { 1 }) == .seconds(600))
        #expect(policy.delayBeforeRetry(after: failure, attempt: 4) == nil)
        #expect(policy.delayBeforeRetry(after: .httpStatus(404, retryAfter: nil), attempt: 1) == nil)
    }

    @Test("a background session's job retries network errors past max attempts until its resource timeout, the last wait ending by it; statuses still stop at max attempts (BG-06, ER-13)")
    func networkRetriesUntilTheResourceTimeout() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let background = RetryPolicy(maxAttempts: 1, baseDelay: .seconds(2), maximumDelay: .seconds(60), networkRetriesUntil: now.addingTimeInterval(30))
        let lost = RetryPolicy.AttemptFailure.transfer(.networkConnectionLost)
        #expect(background.delayBeforeRetry(after: lost, attempt: 1, now: now, random: { 0 }) == .seconds(1))
        #expect(background.delayBeforeRetry(after: lost, attempt: 9, now: now, random: { 0 }) == .seconds(30), "capped by the time left")
        #expect(background.delayBeforeRetry(after: .transfer(.cannotConnectToHost), attempt: 5, now: now.addingTimeInterval(29), random: { 0 }) == .seconds(1))
        #expect(background.delayBeforeRetry(after: lost, attempt: 2, now: now.addingTimeInterval(30)) == nil, "the resource timeout has passed")
        #expect(background.delayBeforeRetry(after: .httpStatus(503, retryAfter: nil), attempt: 1, now: now) == nil, "statuses count against max_attempts")
        #expect(background.delayBeforeRetry(after: .transfer(.cancelled), attempt: 1, now: now) == nil)
        #expect(RetryPolicy(maxAttempts: 1).delayBeforeRetry(after: lost, attempt: 1, now: now) == nil, "a default session's job follows max_attempts")
    }

    @Test("Retry-After is honoured as seconds or as an HTTP date, capped by the maximum")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(policy.delayBeforeRetry(after: .httpStatus(429, retryAfter: "7"), attempt: 1, now: now) == .seconds(7))
        #expect(policy.delayBeforeRetry(after: .httpStatus(503, retryAfter: "3600"), attempt: 1, now: now) == .seconds(60))
        let date = "Tue, 14 Nov 2023 22:13:50 GMT"  // 30 s after `now`
        #expect(policy.delayBeforeRetry(after: .httpStatus(503, retryAfter: date), attempt: 1, now: now) == .seconds(30))
        #expect(policy.delayBeforeRetry(after: .httpStatus(503, retryAfter: "soon"), attempt: 1, now: now, random: { 0 }) == .seconds(1))
        // RFC 9110 §10.2.3: delay-seconds are digits only; a signed number is not one.
        for signed in ["+7", "-7"] {
            #expect(policy.delayBeforeRetry(after: .httpStatus(429, retryAfter: signed), attempt: 1, now: now, random: { 0 }) == .seconds(1), "\(signed)")
        }
    }

    @Test("RFC 9110 §5.6.7: a Retry-After date is an HTTP-date (the obsolete formats too), nothing looser")
    func retryAfterHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let obsolete = "Tuesday, 14-Nov-23 22:13:50 GMT"
        #expect(policy.delayBeforeRetry(after: .httpStatus(503, retryAfter: obsolete), attempt: 1, now: now) == .seconds(30))
        for loose in ["Tue, 14 Nov 2023 22:13:50 UTC", "Tue, 14 Nov 23 22:13:50 GMT"] {
            #expect(policy.delayBeforeRetry(after: .httpStatus(503, retryAfter: loose), attempt: 1, now: now, random: { 0 }) == .seconds(1), "\(loose)")
        }
    }
}
