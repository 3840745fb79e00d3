import ArgumentParser
import Foundation
import URLLoading

/// How transfers connect: redirects, timeouts, HTTP version, proxy. These become the session's
/// configuration, shared by every transfer of one command.
struct ConnectionOptions: ParsableArguments {
    // `.unconditional` parsing takes "-1" as the value, so a negative number gets a clear message
    // from `validate()` rather than "missing value".
    @Option(
        name: .customLong("max-redirs"), parsing: .unconditional,
        help: ArgumentHelp("Follow at most <n> redirects; one more fails the transfer.", valueName: "n"))
    var maxRedirects: Int = 16

    @Option(
        name: .customLong("connect-timeout"), parsing: .unconditional,
        help: ArgumentHelp("Give up connecting (TCP and TLS) after <seconds>.", valueName: "seconds"))
    var connectTimeout: Double?

    @Option(
        name: [.customShort("m"), .customLong("max-time")], parsing: .unconditional,
        help: ArgumentHelp("Give up on a transfer that takes longer than <seconds> in total.", valueName: "seconds"))
    var maxTime: Double?

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1 only; never offer HTTP/2.")
    var http1Only = false

    @Option(
        name: [.customShort("x"), .customLong("proxy")],
        help: ArgumentHelp(
            "Go through a proxy: http://, socks5:// or socks5h:// (host names resolved by the proxy), with optional user:password@.",
            valueName: "url"))
    var proxy: String?

    @Option(
        name: .customLong("cacert"),
        help: ArgumentHelp("Also trust the certificate authorities in <file> (PEM) for https.", valueName: "file"))
    var caCertificates: String?

    mutating func validate() throws {
        guard maxRedirects >= 0 else { throw ValidationError("--max-redirs must be 0 or more (got \(maxRedirects))") }
        try Self.requirePositive(connectTimeout, "--connect-timeout")
        try Self.requirePositive(maxTime, "--max-time")
        if let proxy, parsedProxy(proxy) == nil {
            throw ValidationError(
                "--proxy '\(proxy)': expected http://, socks5:// or socks5h:// followed by [user:password@]host[:port]")
        }
    }

    /// The session configuration these options describe. `connectionsPerHost` lets a batch run all
    /// its transfers at once instead of the engine queueing them behind its default limit.
    /// `persistent`: a default session, which may write a cache to disk (`--cache-dir`).
    /// `background`: the configuration of `--background`, which these options complete.
    func sessionConfiguration(
        connectionsPerHost: Int?, persistent: Bool = false, background: SessionConfiguration? = nil
    ) throws(UsageError) -> SessionConfiguration {
        // Ephemeral unless asked otherwise: a command-line run keeps nothing on disk beyond the files
        // it was asked for.
        var configuration = background ?? (persistent ? SessionConfiguration.default : SessionConfiguration.ephemeral)
        configuration.maximumRedirects = maxRedirects
        if let connectTimeout { configuration.connectTimeout = connectTimeout }
        if let maxTime { configuration.resourceTimeout = maxTime }
        configuration.httpVersion2Enabled = !http1Only
        configuration.proxy = proxy.flatMap(parsedProxy)
        if let connectionsPerHost { configuration.maximumConnectionsPerHost = connectionsPerHost }
        // Like curl without --compressed: the bytes saved are the bytes the server sent.
        configuration.acceptsCompressedContent = false
        if let caCertificates {
            try InputFile.requireReadableRegularFile(caCertificates, argument: "--cacert \(caCertificates)")
            guard let pem = try? String(contentsOfFile: caCertificates, encoding: .utf8),
                pem.contains("-----BEGIN CERTIFICATE-----")
            else {
                throw UsageError("--cacert \(caCertificates): not a PEM certificate file")
            }
            configuration.additionalTrustedCAsPEM = pem
        }
        return configuration
    }

    private func parsedProxy(_ text: String) -> SessionConfiguration.Proxy? {
        guard let proxy = SessionConfiguration.Proxy(url: text), (1...65535).contains(proxy.port) else { return nil }
        return proxy
    }

    private static func requirePositive(_ seconds: Double?, _ option: String) throws {
        guard let seconds else { return }
        guard seconds.isFinite, seconds > 0 else {
            throw ValidationError("\(option) must be a positive number of seconds (got \(seconds))")
        }
    }
}
