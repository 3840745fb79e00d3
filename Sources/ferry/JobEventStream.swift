import Foundation
import URLLoading

/// Reads a Server-Sent Events stream of the gateway (`GET /v1/jobs/{id}/events`), reconnecting with
/// `Last-Event-ID` when it drops, so that no state change is missed: the gateway replays the stored
/// events after that id, then goes on live.
///
/// It asks the engine directly, not the generated client: the document gives the stream as
/// `text/event-stream` with a description, not a schema of its events, so the client would hand
/// over the same unparsed bytes, and the first 404 (an older ferryd, answered by polling) must stay
/// a 404 here instead of becoming the failure every other refusal is.
struct JobEventStream {
    let connection: GatewayConnection
    let path: String

    enum Outcome {
        /// The handler saw what it waited for.
        case finished
        /// The first request got a 404: a ferryd without event streams (or no such job). The caller
        /// falls back to polling, which tells the two apart.
        case unavailable
    }

    /// Reconnections in a row without a single event before giving up.
    static let maximumReconnections = 8
    /// The delay before reconnecting, unless the server set one with `retry:`; doubled for every
    /// reconnection in a row without an event, up to `maximumDelay`.
    static let firstDelay = Duration.milliseconds(500)
    static let maximumDelay = Duration.seconds(10)

    /// Delivers every event to `handle` until it returns true. A refusal (401, a 404 after the stream
    /// was there, ...) or too many failed reconnections end it with a `GatewayFailure`.
    func run(_ handle: (ServerSentEvent) throws(GatewayFailure) -> Bool) async throws(GatewayFailure) -> Outcome {
        var parser = ServerSentEventParser()
        var hasConnected = false
        var failuresInARow = 0
        while true {
            var request = connection.request("GET", path)
            request.headers["Accept"] = "text/event-stream"
            if let lastEventID = parser.lastEventID { request.headers["Last-Event-ID"] = lastEventID }
            connection.logRequest(request)

            var dropped: String
            do {
                let (body, response) = try await connection.session.bytes(for: request)
                connection.logResponse(response)
                if response.statusCode == 404, !hasConnected {
                    body.task.cancel()
                    return .unavailable
                }
                guard response.isSuccess else {
                    let problem = (try? await body.collect(upTo: GatewayConnection.maximumErrorBody)) ?? Data()
                    throw GatewayFailure.refused(statusCode: response.statusCode ?? 0, body: problem)
                }
                guard response.mimeType == "text/event-stream" else {
                    body.task.cancel()
                    throw GatewayFailure.unexpectedAnswer("an event stream (text/event-stream)")
                }
                if !hasConnected { connection.note("streaming events from \(path)") }
                hasConnected = true
                // A new connection starts a new stream: only the last event id carries over.
                parser = ServerSentEventParser(lastEventID: parser.lastEventID, retry: parser.retry)
                for try await piece in body {
                    for event in parser.feed(piece) {
                        failuresInARow = 0
                        if try handle(event) {
                            body.task.cancel()
                            return .finished
                        }
                    }
                }
                dropped = "the event stream ended"
            } catch let failure as GatewayFailure {
                throw failure
            } catch let error as TransferError {
                // Unreachable from the start: nothing to resume, and waiting would only hide it.
                guard hasConnected else { throw GatewayFailure.unreachable(error) }
                dropped = "the event stream broke (\(error.code.rawValue): \(error.message))"
            } catch {
                throw GatewayFailure("\(error)")
            }

            failuresInARow += 1
            guard failuresInARow <= Self.maximumReconnections else {
                throw GatewayFailure("\(dropped), and \(Self.maximumReconnections) reconnections in a row brought no event")
            }
            let delay = min((parser.retry ?? Self.firstDelay) * (1 << min(failuresInARow - 1, 10)), Self.maximumDelay)
            connection.note("\(dropped); reconnecting in \(delay) after event \(parser.lastEventID ?? "(none)")")
            try? await Task.sleep(for: delay)
        }
    }
}
