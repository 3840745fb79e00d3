import Foundation

/// What a background session adds to its configuration (`sessions.configuration.background`): the
/// seeds' background configuration, with the gateway where the system would be.
public struct BackgroundSettings: Sendable, Equatable, Codable {
    /// How long each of the session's jobs keeps being retried after network errors, from its
    /// submission (BG-06, ER-13; the seeds' `timeoutIntervalForResource`), in seconds.
    public var resourceTimeout: Double
    /// Its jobs run only on workers no other waiting job wants, and give them back when one comes
    /// (BG-05, BG-17).
    public var discretionary: Bool
    /// None of its jobs starts before this time (BG-18), as `JobView.timestamp` writes it.
    public var notBefore: String?
    /// Its jobs' ends and its `session.events_finished` are delivered to `callbackURL` (BG-16).
    public var sendsLaunchEvents: Bool
    /// The session's webhook: the callback of its jobs that name none of their own, and where
    /// `session.events_finished` goes. Read by SQL (`migrations/0018`) as `background.callback_url`.
    public var callbackURL: String?

    /// The seeds' default resource timeout: seven days.
    public static let defaultResourceTimeout: Double = 7 * 86400

    public init(
        resourceTimeout: Double = Self.defaultResourceTimeout, discretionary: Bool = false, notBefore: String? = nil,
        sendsLaunchEvents: Bool = true, callbackURL: String? = nil
    ) {
        self.resourceTimeout = resourceTimeout
        self.discretionary = discretionary
        self.notBefore = notBefore
        self.sendsLaunchEvents = sendsLaunchEvents
        self.callbackURL = callbackURL
    }

    package enum CodingKeys: String, CodingKey {
        case resourceTimeout = "resource_timeout"
        case discretionary
        case notBefore = "not_before"
        case sendsLaunchEvents = "sends_launch_events"
        case callbackURL = "callback_url"
    }
}
