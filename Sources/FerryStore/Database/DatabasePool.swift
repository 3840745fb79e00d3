import FerryMetrics
import FerryModel
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization
import Tracing

/// The service's connections to PostgreSQL: a `PostgresClient` that is replaced by a fresh one when
/// the database has been away, and that refuses at once, rather than waits, while it is away.
///
/// Why not the client alone: while it cannot connect, `PostgresClient` queues every request (for up
/// to a minute, after which it fails them and refuses new ones), and it tries to connect again after
/// longer and longer pauses (up to a minute). So during an outage every API call hung, and after one
/// the pool stayed useless for many seconds after the database was back.
///
/// Here a probe asks the database `SELECT 1` on a connection of its own every `probeInterval` (at
/// once when a caller saw a connection fail). When the database refuses or drops connections, or
/// gives no answer at all for a few probes (see `watch`), the pool is unavailable: its client is shut down, which fails every request waiting in it, and every call
/// fails at once with `DatabaseOutage.refusal` (503 `database_unavailable` at the API). The probe then
/// tries to connect every `reconnectInterval`; the first answer brings a fresh client into service.
public final class DatabasePool: Service, Sendable {
    public struct Settings: Sendable {
        public var probeInterval: Duration = .milliseconds(500)
        public var probeTimeout: Duration = .seconds(1)
        public var reconnectInterval: Duration = .milliseconds(250)

        public init() {}
    }

    private struct State {
        /// Nil while the database is away.
        var client: PostgresClient?
        /// Whether `client` has been handed to `PostgresClient.run()`. PostgresClient serves a lease
        /// made before that once it runs, but logs a warning for each ("`run()` hasn't been called
        /// yet"): every start logged six, from the services that query as they start. Calls wait here
        /// instead (`waitingForRun`), and are let through when it runs or goes.
        var clientRuns = false
        var waitingForRun: [CheckedContinuation<Void, Never>] = []
        /// When the database last came back (nil: no outage seen since start).
        var lastReturn: ContinuousClock.Instant?
    }

    private let clientConfiguration: PostgresClient.Configuration
    private let probeConfiguration: PostgresConnection.Configuration
    private let settings: Settings
    /// Where the waits for a connection are recorded (`withConnection`, `withTransaction`).
    private let metrics: GatewayMetrics?
    /// Spans for calls made within a traced request or job attempt; nil: none.
    let tracer: (any Tracer)?
    private let logger: Logger
    private let state: Mutex<State>
    private let suspicion = Doorbell()

    /// - Parameters:
    ///   - clientConfiguration: the pool's connections.
    ///   - probeConfiguration: the probe's connection, to the same database.
    public init(
        clientConfiguration: PostgresClient.Configuration, probeConfiguration: PostgresConnection.Configuration,
        settings: Settings = Settings(), metrics: GatewayMetrics? = nil, tracer: (any Tracer)? = nil, logger: Logger
    ) {
        self.clientConfiguration = clientConfiguration
        var probeConfiguration = probeConfiguration
        probeConfiguration.options.connectTimeout = .milliseconds(Int64(settings.probeTimeout / .milliseconds(1)))
        self.probeConfiguration = probeConfiguration
        self.settings = settings
        self.metrics = metrics
        self.tracer = tracer
        self.logger = logger
        // Calls made before `run` wait until it runs this client (`State.clientRuns`).
        self.state = Mutex(State(client: PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)))
    }

    /// Whether calls are being passed to the database now.
    public var isAvailable: Bool { state.withLock { $0.client != nil } }

    /// True when the database is available and has been for at least `duration` since it last
    /// came back (or was never seen away).
    public func hasBeenAvailable(for duration: Duration) -> Bool {
        state.withLock { state in
            guard state.client != nil else { return false }
            guard let lastReturn = state.lastReturn else { return true }
            return ContinuousClock.now - lastReturn >= duration
        }
    }

    /// Returns when the database is available, or after `limit`, whichever comes first.
    public func waitUntilAvailable(atMost limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while !isAvailable, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: settings.reconnectInterval)
        }
    }

    // MARK: - Calls, as PostgresClient takes them

    // PostgresClient tells nobody how long a call waited for a connection (its pool's observability
    // delegate is internal), so it is measured here, where the caller's closure starts: for
    // `withConnection` and `withTransaction` (there, once BEGIN was answered). `query` and `execute`
    // lease their connection inside PostgresClient, where no closure marks the moment: not measured.

    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger? = nil, file: String = #fileID, line: Int = #line) async throws
        -> PostgresRowSequence
    {
        let span = databaseSpan(DatabaseSpanName.of(sql: query.sql), file: file, line: line)
        defer { span?.end() }
        let client = try await available(span)
        do {
            return try await client.query(query, logger: logger, file: file, line: line)
        } catch {
            throw failed(error, span)
        }
    }

    public func execute<Statement: PostgresPreparedStatement, Row>(
        _ statement: Statement, logger: Logger? = nil, file: String = #fileID, line: Int = #line
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Row> where Row == Statement.Row {
        let span = databaseSpan(DatabaseSpanName.of(sql: Statement.sql), file: file, line: line)
        defer { span?.end() }
        let client = try await available(span)
        do {
            return try await client.execute(statement, logger: logger, file: file, line: line)
        } catch {
            throw failed(error, span)
        }
    }

    public func withConnection<Result>(
        file: String = #fileID, line: Int = #line, isolation: isolated (any Actor)? = #isolation,
        _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let span = databaseSpan("connection", file: file, line: line)
        defer { span?.end() }
        let client = try await available(span)
        let asked = ContinuousClock.now
        do {
            return try await client.withConnection(isolation: isolation) { connection in
                metrics?.databasePoolWaited(ContinuousClock.now - asked)
                return try await closure(connection)
            }
        } catch {
            throw failed(error, span)
        }
    }

    public func withTransaction<Result>(
        logger: Logger, file: String = #file, line: Int = #line, isolation: isolated (any Actor)? = #isolation,
        _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let span = databaseSpan("transaction", file: file, line: line)
        defer { span?.end() }
        let client = try await available(span)
        let asked = ContinuousClock.now
        do {
            return try await client.withTransaction(logger: logger, file: file, line: line, isolation: isolation) { connection in
                metrics?.databasePoolWaited(ContinuousClock.now - asked)
                return try await closure(connection)
            }
        } catch {
            throw failed(error, span)
        }
    }

    /// The client, once it runs; the refusal while the database is away.
    private func available(_ span: (any Span)?) async throws -> PostgresClient {
        while true {
            let (client, runs) = state.withLock { ($0.client, $0.clientRuns) }
            guard let client else {
                span?.recordError(DatabaseOutage.refusal)
                throw DatabaseOutage.refusal
            }
            if runs { return client }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state in
                    guard state.client === client, !state.clientRuns else { return false }
                    state.waitingForRun.append(continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        }
    }

    /// Lets the calls waiting for the client to run look again: it runs now, or is gone.
    private func releaseCallsWaitingForRun(clientRuns: Bool) {
        let waiting = state.withLock { state in
            state.clientRuns = clientRuns
            defer { state.waitingForRun = [] }
            return state.waitingForRun
        }
        for continuation in waiting { continuation.resume() }
    }

    /// A caller's failure: an outage is reported as the refusal, and makes the probe look at once.
    private func failed(_ error: any Error, _ span: (any Span)?) -> any Error {
        let reported = DatabaseOutage.describes(error) ? DatabaseOutage.refusal : error
        span?.recordError(reported)
        span?.setStatus(SpanStatus(code: .error))
        guard DatabaseOutage.describes(error) else { return error }
        suspicion.ring()
        return reported
    }

    // MARK: - The service

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var probe: PostgresConnection?
            while !Task.isCancelled {
                guard let client = self.state.withLock({ $0.client }) else { return }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        // The calls let through resume on other threads; `run()`, called next with
                        // no suspension between, marks the client running at its first line. Losing
                        // that race would cost a warning, nothing else.
                        self.releaseCallsWaitingForRun(clientRuns: true)
                        await client.run()
                    }
                    probe = await self.watch(probe)
                    // Away (or shutting down): refuse calls from now on, and fail those waiting in
                    // the client by shutting it down.
                    self.state.withLock { $0.client = nil }
                    self.releaseCallsWaitingForRun(clientRuns: false)
                    group.cancelAll()
                }
                if Task.isCancelled { break }
                self.logger.error("the database does not answer; API calls get 503 database_unavailable until it does")
                let (back, connection) = await self.reconnect()
                probe = connection
                guard back else { break }
                self.state.withLock { state in
                    state.client = PostgresClient(configuration: self.clientConfiguration, backgroundLogger: self.logger)
                    state.clientRuns = false
                    state.lastReturn = .now
                }
                self.logger.notice("the database answers again")
            }
            try? await probe?.close()
        }
        // Stopped (perhaps before the client ever ran): calls from now on, and any still waiting, are refused.
        state.withLock { $0.client = nil }
        releaseCallsWaitingForRun(clientRuns: false)
    }

    /// Probes until the database is found away or the task is cancelled; returns the probe
    /// connection still open, if any.
    ///
    /// Away means a failure `DatabaseOutage` describes (refused, closed, shutting down, starting up)
    /// on the old connection and again on a new one, or no answer at all for `hangingProbes` probes
    /// in a row (a server that stopped answering). Any other failure (the server is full: "too many
    /// clients", a slow answer on a busy machine) is not an outage: the pool's own connections may
    /// well work, and refusing every call for it would turn a busy moment into an outage.
    private func watch(_ initial: PostgresConnection?) async -> PostgresConnection? {
        var connection = initial
        var bell = suspicion.makeListener()
        var unanswered = 0
        while !Task.isCancelled {
            do {
                connection = try await probe(connection)
                unanswered = 0
            } catch {
                try? await connection?.close()
                connection = nil
                if Task.isCancelled { return nil }
                do {
                    connection = try await probe(nil)
                    unanswered = 0
                } catch {
                    if DatabaseOutage.describes(error) {
                        logger.warning("database probe failed", metadata: ["error": LoggedError.metadata(error)])
                        return nil
                    }
                    if error is Deadline.Passed {
                        unanswered += 1
                        if unanswered >= Self.hangingProbes {
                            logger.warning("the database did not answer \(unanswered) probes in a row")
                            return nil
                        }
                    } else {
                        logger.debug("database probe failed; not an outage", metadata: ["error": LoggedError.metadata(error)])
                    }
                }
            }
            await bell.wait(atMost: settings.probeInterval)
        }
        return connection
    }

    /// Probes without any answer before a server is taken for hung: about 3 to 4 seconds.
    static let hangingProbes = 3

    /// Tries to connect every `reconnectInterval` until the database answers; nil when cancelled.
    /// A server that answers with an error of its own that is no outage (it is full) is back.
    /// Returns false when cancelled, else the probe connection if one was made.
    private func reconnect() async -> (back: Bool, connection: PostgresConnection?) {
        while !Task.isCancelled {
            do {
                return (true, try await probe(nil))
            } catch let error as PSQLError where error.code == .server && !DatabaseOutage.describes(error) {
                return (true, nil)
            } catch {}
            try? await Task.sleep(for: settings.reconnectInterval)
        }
        return (false, nil)
    }

    /// `SELECT 1` on `connection`, or on a new connection when it is nil; returns the connection used.
    private func probe(_ connection: PostgresConnection?) async throws -> PostgresConnection {
        let configuration = probeConfiguration
        let logger = logger
        return try await Deadline.run(within: settings.probeTimeout) {
            let used: PostgresConnection
            if let connection {
                used = connection
            } else {
                used = try await PostgresConnection.connect(
                    on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration, id: 0, logger: logger
                ).get()
            }
            do {
                // Given up on meanwhile: nobody will close it otherwise.
                try Task.checkCancellation()
                for try await _ in try await used.query("SELECT 1", logger: logger) {}
                try Task.checkCancellation()
            } catch {
                try? await used.close()
                throw error
            }
            return used
        }
    }
}
