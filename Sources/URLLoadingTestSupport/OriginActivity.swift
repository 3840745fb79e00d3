import NIOConcurrencyHelpers

/// Everything an `OriginServer` counts, shared by all of its connections.
///
/// The event loops and the route tasks update it concurrently, so one mutex guards it all.
final class OriginActivity: Sendable {
    private struct State {
        var nextConnectionID = 1
        var connectionCount = 0
        var nextRequestToken = 0
        /// Requests in arrival order, each with the token that lets its body length be filled in later.
        var requests: [(token: Int, request: RecordedRequest)] = []
        var requestsInFlight = 0
        var maxConcurrentRequests = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Counts a newly accepted TCP connection and hands out its ID.
    /// IDs keep growing across `reset()`, so a reset never makes two connections look alike.
    func connectionAccepted() -> Int {
        state.withLockedValue { state in
            state.connectionCount += 1
            defer { state.nextConnectionID += 1 }
            return state.nextConnectionID
        }
    }

    /// Records a request as soon as its head arrives (so the log is in arrival order)
    /// and counts it as in flight until `requestFinished()`.
    func requestStarted(_ request: RecordedRequest) -> Int {
        state.withLockedValue { state in
            let token = state.nextRequestToken
            state.nextRequestToken += 1
            state.requests.append((token, request))
            state.requestsInFlight += 1
            state.maxConcurrentRequests = max(state.maxConcurrentRequests, state.requestsInFlight)
            return token
        }
    }

    /// Recorded requests whose URI (path and query) is `uri`.
    func requestCount(uri: String) -> Int {
        state.withLockedValue { state in state.requests.reduce(0) { $0 + ($1.request.uri == uri ? 1 : 0) } }
    }

    func requestBodyReceived(token: Int, length: Int) {
        state.withLockedValue { state in
            // Search from the end: the request is almost always among the latest.
            if let index = state.requests.lastIndex(where: { $0.token == token }) {
                state.requests[index].request.bodyLength = length
            }
        }
    }

    func requestFinished() {
        state.withLockedValue { $0.requestsInFlight -= 1 }
    }

    var requests: [RecordedRequest] {
        state.withLockedValue { $0.requests.map(\.request) }
    }

    var connectionCount: Int {
        state.withLockedValue { $0.connectionCount }
    }

    var maxConcurrentRequests: Int {
        state.withLockedValue { $0.maxConcurrentRequests }
    }

    /// Forgets requests and counts; requests still in flight keep counting toward the new maximum.
    func reset() {
        state.withLockedValue { state in
            state.requests.removeAll()
            state.connectionCount = 0
            state.maxConcurrentRequests = state.requestsInFlight
        }
    }
}
