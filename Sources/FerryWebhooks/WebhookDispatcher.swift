import FerryMetrics
import FerryModel
import FerryStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Tracing
import URLLoading

/// Delivers webhooks, as a service of ferryd beside the worker pool: claims due deliveries (shared
/// with the dispatchers of other ferryd processes), POSTs each with the Standard Webhooks headers
/// through Ferry's own engine behind the same SSRF guard as jobs (15 s limit, no redirects
/// followed), and records the attempt. At least once: a delivery is done only when its receiver
/// answered 2xx and that answer was written; `webhook-id` is the event id on every attempt.
///
/// Wakes when a job event is written (`JobEventFeed`) and every second besides (retries fall due
/// without a notification).
public final class WebhookDispatcher: Service, Sendable {
    public struct Settings: Sendable {
        public var schedule: WebhookRetrySchedule
        public var allowPrivateNetworks: Bool
        /// Deliveries in flight at once in this process.
        public var concurrency: Int = 16
        public var pollInterval: Duration = .seconds(1)

        public init(schedule: WebhookRetrySchedule, allowPrivateNetworks: Bool) {
            self.schedule = schedule
            self.allowPrivateNetworks = allowPrivateNetworks
        }
    }

    /// Standard Webhooks asks receivers to answer quickly; a hung receiver must not hold a slot.
    package static let requestTimeout: TimeInterval = 15
    /// A claim outlives the longest attempt, so only a dispatcher that died loses it.
    package static let claimSeconds = 60

    private let queue: WebhookDeliveryQueue
    private let store: WebhookStore
    private let feed: JobEventFeed
    private let settings: Settings
    private let metrics: GatewayMetrics
    /// A span per delivery attempt, in the job's trace; nil: none (the job's own `traceparent`, if
    /// it came with one, is still sent on).
    let tracer: (any Tracer)?
    private let logger: Logger
    private let inFlight = Atomic<Int>(0)
    private let doorbell = Doorbell()

    package init(
        queue: WebhookDeliveryQueue, store: WebhookStore, feed: JobEventFeed, settings: Settings, metrics: GatewayMetrics,
        tracer: (any Tracer)? = nil, logger: Logger
    ) {
        self.queue = queue
        self.store = store
        self.feed = feed
        self.settings = settings
        self.metrics = metrics
        self.tracer = tracer
        self.logger = logger
    }

    /// The engine session deliveries go through: the jobs' connection policy, no redirects, 15 s.
    package static func makeSession(allowPrivateNetworks: Bool) throws -> Session {
        var configuration = SessionConfiguration.ephemeral
        configuration.connectionPolicy = DestinationPolicy.connectionPolicy(allowPrivateNetworks: allowPrivateNetworks)
        configuration.maximumRedirects = 0
        configuration.requestTimeout = requestTimeout
        configuration.resourceTimeout = requestTimeout
        configuration.acceptsCompressedContent = false
        return try Session(configuration: configuration)
    }

    public func run() async throws {
        let session = try Self.makeSession(allowPrivateNetworks: settings.allowPrivateNetworks)
        defer { session.invalidateAndCancel() }
        let doorbell = self.doorbell
        await feed.withSubscription({ notice in
            if case .stored = notice { doorbell.ring() }
        }) {
            await cancelWhenGracefulShutdown {
                await withDiscardingTaskGroup { deliveries in
                    var bell = self.doorbell.makeListener()
                    while !Task.isCancelled {
                        let free = self.settings.concurrency - self.inFlight.load(ordering: .relaxed)
                        var claimed: [WebhookDeliveryQueue.Due] = []
                        if free > 0 {
                            do {
                                claimed = try await self.queue.claim(limit: free, leaseSeconds: Self.claimSeconds)
                            } catch {
                                if Task.isCancelled { break }
                                self.logger.warning("claiming webhook deliveries failed", metadata: ["error": LoggedError.metadata(error)])
                            }
                        }
                        for due in claimed {
                            self.inFlight.add(1, ordering: .relaxed)
                            deliveries.addTask {
                                await self.deliver(due, session: session)
                                self.inFlight.subtract(1, ordering: .relaxed)
                                self.doorbell.ring()
                            }
                        }
                        if free > 0, claimed.count == free { continue }
                        await bell.wait(atMost: self.settings.pollInterval)
                    }
                }
            }
        }
    }

    private func deliver(_ due: WebhookDeliveryQueue.Due, session: Session) async {
        let metadata: Logger.Metadata = ["delivery": "\(due.id.lowercasedString)", "event": "\(due.eventID)", "type": "\(due.eventType)"]
        do {
            let secrets: [Secret]
            if let endpointSecret = due.endpointSecret { secrets = [endpointSecret] } else { secrets = try await store.signingSecrets(tenant: due.tenantID) }
            let outcome = await attempt(due, secrets: secrets, session: session)
            try await queue.record(due, outcome)
            metrics.webhookDeliveryAttempted(outcome: Self.metricOutcome(outcome.next))
            if outcome.next != .delivered {
                logger.info("webhook delivery attempt did not succeed", metadata: metadata.merging([
                    "attempt": "\(due.attempt)", "status": "\(outcome.responseStatus.map(String.init) ?? "none")",
                ]) { $1 })
            }
        } catch {
            // The claim runs out and the delivery is tried again: at least once.
            logger.warning("webhook delivery could not be recorded", metadata: metadata.merging(["error": LoggedError.metadata(error)]) { $1 })
        }
    }

    /// `ferry_webhook_deliveries_total`'s outcome label for what an attempt led to.
    static func metricOutcome(_ next: WebhookDeliveryQueue.Next) -> String {
        switch next {
        case .delivered: "delivered"
        case .retry: "retrying"
        case .failed: "failed"
        }
    }

    /// One POST of the delivery, signed now (the timestamp is the attempt's).
    private func attempt(_ due: WebhookDeliveryQueue.Due, secrets: [Secret], session: Session) async -> WebhookDeliveryQueue.Outcome {
        let started = Date()
        let clock = ContinuousClock.now
        var status: Int?
        var retryAfter: String?
        var failure: String?
        var failureCode: TransferError.Code?
        let span = deliverySpan(due)
        defer { span.map { endDeliverySpan($0, status: status, failure: failure) } }
        do {
            guard let url = URL(string: due.url) else { throw TransferError(.badURL, "the webhook URL cannot be parsed") }
            let body = try WebhookPayload(type: due.eventType, time: due.eventTime, job: due.job, part: due.part).encoded()
            let messageID = String(due.eventID)
            let timestamp = Int64(started.timeIntervalSince1970)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "User-Agent", value: "ferryd-webhooks")
            headers.add(name: "webhook-id", value: messageID)
            headers.add(name: "webhook-timestamp", value: String(timestamp))
            headers.add(name: "webhook-signature", value: WebhookSignature.header(id: messageID, timestamp: timestamp, body: body, secrets: secrets))
            if let trace = traceContext(for: due, span: span) {
                headers.add(name: "traceparent", value: trace.traceparent)
                if let state = trace.tracestate { headers.add(name: "tracestate", value: state) }
            }
            let request = TransferRequest(url: url, method: "POST", headers: headers, body: body, timeoutInterval: Self.requestTimeout)
            let (_, response) = try await session.data(for: request)
            status = response.statusCode
            retryAfter = response.headers["Retry-After"]
        } catch let error as TransferError {
            failureCode = error.code
            failure = error.code == .tooManyRedirects ? "the receiver redirected; webhook redirects are not followed" : "\(error.code.rawValue): \(error.message)"
        } catch {
            failure = "\(error)"
        }
        let elapsed = ContinuousClock.now - clock
        return WebhookDeliveryQueue.Outcome(
            startedAt: started, latencyMilliseconds: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000),
            responseStatus: status, error: failure,
            next: WebhookRetryDecision.next(
                status: status, retryAfter: retryAfter, failuresBefore: due.failures, schedule: settings.schedule, failure: failureCode))
    }
}
