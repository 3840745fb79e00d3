import ArgumentParser
import Foundation
import URLLoading

/// Which ferryd to talk to, with which key, and how to answer: shared by every gateway command.
///
/// The server and key come from the options or, when those are absent, from `FERRY_URL` and
/// `FERRY_API_KEY`. The variable is the better home for the key: a command line is visible to every
/// user of the machine (`ps`), the environment is not.
struct GatewayOptions: ParsableArguments {
    @Option(
        name: .customLong("server"),
        help: ArgumentHelp("The ferryd to talk to, e.g. http://localhost:8080 (default: $FERRY_URL).", valueName: "url"))
    var server: String?

    @Option(
        name: .customLong("api-key"),
        help: ArgumentHelp("The API key to send (default: $FERRY_API_KEY, the safer place for it).", valueName: "key"))
    var apiKey: String?

    @Flag(name: .customLong("json"), help: "Print the API's JSON on standard output instead of text, for scripts.")
    var json = false

    @Flag(
        name: [.customShort("v"), .customLong("verbose")],
        help: "Print each request and response status on standard error (the API key is never shown).")
    var verbose = false

    static let serverVariable = "FERRY_URL"
    static let apiKeyVariable = "FERRY_API_KEY"

    /// The connection these options describe, or why there is none (a usage error: exit status 2).
    func connect(console: Console) throws(UsageError) -> GatewayConnection {
        let environment = ProcessInfo.processInfo.environment
        guard let serverText = nonEmpty(server) ?? nonEmpty(environment[Self.serverVariable]) else {
            throw UsageError("no server: give --server <url> or set \(Self.serverVariable)")
        }
        guard let baseURL = URL(string: serverText.hasSuffix("/") ? String(serverText.dropLast()) : serverText),
            let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https", baseURL.host != nil,
            baseURL.query == nil, baseURL.fragment == nil
        else {
            throw UsageError("--server '\(serverText)': expected an http:// or https:// URL such as http://localhost:8080")
        }
        guard let key = nonEmpty(apiKey) ?? nonEmpty(environment[Self.apiKeyVariable]) else {
            throw UsageError("no API key: set \(Self.apiKeyVariable) or give --api-key <key>")
        }
        // Ephemeral: nothing about the gateway is kept on disk. The idle timeout stays the engine's
        // 60 s, well above the 15 s between an event stream's keep-alives.
        var configuration = SessionConfiguration.ephemeral
        configuration.acceptsCompressedContent = false
        let session: Session
        do {
            session = try Session(configuration: configuration)
        } catch {
            throw UsageError(error.description)
        }
        return GatewayConnection(baseURL: baseURL, apiKey: key, session: session, log: verbose ? console : nil)
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
