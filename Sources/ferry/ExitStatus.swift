/// The process exit statuses of `ferry`, chosen to match curl where curl has an equivalent.
enum ExitStatus: Int32, Sendable {
    case success = 0
    /// A transfer failed before a usable response arrived (connection, timeout, redirects, files ...);
    /// for the gateway commands, also a request the gateway refused (its problem document is shown).
    case transportFailure = 1
    /// The command line itself is wrong; nothing was transferred.
    case usage = 2
    /// A gateway job this command waited for ended failed or cancelled (`submit --wait`, `watch`).
    case jobUnsuccessful = 3
    /// The server answered with a status outside 2xx (curl's `--fail`).
    case httpFailure = 22
    /// Interrupted by SIGINT or SIGTERM (128 + SIGINT, as shells report it).
    case interrupted = 130

    var code: Int32 { rawValue }
}
