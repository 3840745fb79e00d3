import CoreMetrics
import FerryModel
import Foundation
import URLLoading

/// The engine sessions workers run jobs in: one per owner (a tenant, or one of its gateway sessions)
/// and distinct engine setting (redirect limit, and a gateway session's connection settings), all
/// sharing the engine's loops and all behind the SSRF guard. Timeouts and headers are per request,
/// so they need no session of their own. The outfitters give each session its owner's storages.
public final class JobEngine: Sendable {
    /// Beyond this many distinct settings the least recently used session is let go: tenants choose
    /// settings, and must not make this grow without bound.
    package static let capacity = 128

    package struct Key: Hashable, Sendable {
        package var owner: EngineSessionOwner
        package var settings: SessionSettings.EngineKey
        /// The outfitters' `fixedOutfit` names, filled in by `session(for:)`.
        package var outfits: [String] = []

        package init(owner: EngineSessionOwner, settings: SessionSettings.EngineKey, outfits: [String] = []) {
            self.owner = owner
            self.settings = settings
            self.outfits = outfits
        }
    }

    /// A session let go finishes its running transfers; new jobs with its settings get a new session.
    private let sessions = OwnerRegistry<Key, Session>(capacity: JobEngine.capacity, letGo: { $0.finishTasksAndInvalidate() })
    private let connectionPolicy: ConnectionPolicy?
    private let outfitters: [any EngineSessionOutfitter]
    private let metricsFactory: (any MetricsFactory)?

    /// - Parameter metricsFactory: where the sessions' transfers record (`EngineMetricName`); nil:
    ///   the process's `MetricsSystem`.
    public init(allowPrivateNetworks: Bool, outfitters: [any EngineSessionOutfitter] = [], metricsFactory: (any MetricsFactory)? = nil) {
        connectionPolicy = DestinationPolicy.connectionPolicy(allowPrivateNetworks: allowPrivateNetworks)
        self.outfitters = outfitters
        self.metricsFactory = metricsFactory
    }

    /// Brings the owner's storages up to date before a job runs (see `EngineSessionOutfitter.prepare`).
    package func prepare(for owner: EngineSessionOwner, stored: OwnerStoredState) async throws {
        for outfitter in outfitters { try await outfitter.prepare(for: owner, stored: stored) }
    }

    /// The first explanation an outfitter has for a job's final 401 (see `EngineSessionOutfitter`).
    package func explainUnauthorized(_ response: TransferResponse, for owner: EngineSessionOwner) async -> AuthenticationRefusal? {
        for outfitter in outfitters {
            if let refusal = await outfitter.explainUnauthorized(response, for: owner) { return refusal }
        }
        return nil
    }

    /// Writes what a job changed in the owner's storages (see `EngineSessionOutfitter.settle`). Every
    /// outfitter gets its turn even when an earlier one fails; the first failure is thrown.
    package func settle(for owner: EngineSessionOwner) async throws {
        var firstFailure: (any Error)?
        for outfitter in outfitters {
            do {
                try await outfitter.settle(for: owner)
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
    }

    package func session(for key: Key) throws -> Session {
        var key = key
        key.outfits = outfitters.map { $0.fixedOutfit(for: key.owner) }
        return try sessions.value(for: key) { try makeSession(for: key, delegate: nil) }
    }

    /// A session of its own for one attempt of a job that asks for decisions, outfitted like the
    /// owner's shared ones: its delegate decides for that job alone, and what the session keeps
    /// (trusted certificates, credentials that worked) goes with it. The caller invalidates it after
    /// the attempt.
    package func attemptSession(for key: Key, delegate: any SessionDelegate) throws -> Session {
        try makeSession(for: key, delegate: delegate)
    }

    private func makeSession(for key: Key, delegate: (any SessionDelegate)?) throws -> Session {
        var configuration = key.owner.isEphemeral ? SessionConfiguration.ephemeral : SessionConfiguration.default
        key.settings.apply(to: &configuration)
        configuration.connectionPolicy = connectionPolicy
        configuration.metricsFactory = metricsFactory
        // Until an outfitter gives the owner a jar of its own, cookies stay off: the engine would
        // otherwise keep them in the process-wide shared storage, across tenants.
        configuration.httpShouldSetCookies = false
        for outfitter in outfitters { outfitter.outfit(&configuration, for: key.owner) }
        return try Session(configuration: configuration, delegate: delegate)
    }

    /// Ends every session, cancelling what still runs (ferryd exiting).
    public func invalidateAll() {
        for session in sessions.all { session.invalidateAndCancel() }
    }
}
