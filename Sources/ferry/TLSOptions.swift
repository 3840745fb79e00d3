import ArgumentParser
import Foundation
import URLLoading

/// How https connections are secured: trust (pins, -k), the client certificate for mutual TLS and the
/// TLS versions, named as curl names them (TLS-09, TLS-11, TLS-12). `--cacert` is with the connection
/// options.
struct TLSOptions: ParsableArguments {
    @Option(
        name: .customLong("pinnedpubkey"),
        help: ArgumentHelp(
            "Only accept a server whose public key has one of these SHA-256 hashes (sha256//<base64>[;sha256//...]). The certificate must still be trusted.",
            valueName: "hashes"))
    var pinnedPublicKeys: String?

    @Option(
        name: [.customShort("E"), .customLong("cert")],
        help: ArgumentHelp("Present this client certificate (PEM, or PKCS#12 with --cert-type P12).", valueName: "file"))
    var certificate: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("The private key of --cert (PEM); default: the --cert file.", valueName: "file"))
    var key: String?

    @Option(name: .customLong("cert-type"), help: ArgumentHelp("PEM (default) or P12.", valueName: "type"))
    var certificateType: String = "PEM"

    @Option(name: .customLong("pass"), help: ArgumentHelp("Passphrase of the private key or PKCS#12 file.", valueName: "phrase"))
    var passphrase: String?

    @Flag(name: .customLong("tlsv1.0"), help: "Use TLS 1.0 or newer.")
    var minimumTLS10 = false
    @Flag(name: .customLong("tlsv1.1"), help: "Use TLS 1.1 or newer.")
    var minimumTLS11 = false
    @Flag(name: .customLong("tlsv1.2"), help: "Use TLS 1.2 or newer.")
    var minimumTLS12 = false
    @Flag(name: .customLong("tlsv1.3"), help: "Use TLS 1.3.")
    var minimumTLS13 = false

    @Option(name: .customLong("tls-max"), help: ArgumentHelp("Use at most this TLS version (1.0, 1.1, 1.2, 1.3 or default).", valueName: "version"))
    var maximumTLS: String?

    @Flag(
        name: [.customShort("k"), .customLong("insecure")],
        help: "Do not check the server's certificate at all (a warning is printed). Pins are still checked.")
    var insecure = false

    mutating func validate() throws {
        if let maximumTLS, maximumTLS != "default", SessionConfiguration.TLSVersion(rawValue: maximumTLS) == nil {
            throw ValidationError("--tls-max '\(maximumTLS)': expected 1.0, 1.1, 1.2, 1.3 or default")
        }
        guard ["PEM", "P12"].contains(certificateType.uppercased()) else {
            throw ValidationError("--cert-type '\(certificateType)': expected PEM or P12")
        }
        if certificate == nil, key != nil { throw ValidationError("--key needs --cert") }
        if certificateType.uppercased() == "P12", key != nil { throw ValidationError("--key is for PEM; a P12 file holds its key") }
    }

    /// The warning `-k` prints on standard error, so an unchecked transfer is never silent.
    static let insecureWarning = "ferry: warning: --insecure: the server's certificate is not checked; anyone on the path can read and change this transfer"

    func apply(to configuration: inout SessionConfiguration) throws(UsageError) {
        if let pinnedPublicKeys {
            configuration.pinnedPublicKeys = pinnedPublicKeys.split(separator: ";").map { String($0) }
            if let bad = configuration.pinnedPublicKeys.first(where: { !$0.hasPrefix("sha256//") }) {
                throw UsageError("--pinnedpubkey '\(bad)': only sha256//<base64> hashes are supported")
            }
        }
        configuration.tlsMinimumVersion = minimumVersion
        if let maximumTLS, maximumTLS != "default" { configuration.tlsMaximumVersion = SessionConfiguration.TLSVersion(rawValue: maximumTLS) }
        if let low = configuration.tlsMinimumVersion, let high = configuration.tlsMaximumVersion, low > high {
            throw UsageError("--tlsv\(low.rawValue) is above --tls-max \(high.rawValue)")
        }
        configuration.skipsServerTrustEvaluation = insecure
        configuration.clientIdentity = try clientIdentity()
    }

    /// The highest minimum given wins (curl takes the last one; the options are not ordered here).
    private var minimumVersion: SessionConfiguration.TLSVersion? {
        if minimumTLS13 { return .tls13 }
        if minimumTLS12 { return .tls12 }
        if minimumTLS11 { return .tls11 }
        return minimumTLS10 ? .tls10 : nil
    }

    private func clientIdentity() throws(UsageError) -> ClientIdentity? {
        guard let certificate else { return nil }
        let certificateData = try Self.read(certificate, argument: "--cert")
        if certificateType.uppercased() == "P12" {
            return .pkcs12(certificateData, passphrase: passphrase)
        }
        let keyData = try key.map { path throws(UsageError) in try Self.read(path, argument: "--key") } ?? certificateData
        guard String(decoding: certificateData, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw UsageError("--cert \(certificate): not a PEM certificate (for PKCS#12 add --cert-type P12)")
        }
        guard String(decoding: keyData, as: UTF8.self).contains("PRIVATE KEY-----") else {
            throw UsageError("\(key.map { "--key \($0)" } ?? "--cert \(certificate)"): no PEM private key (give it with --key)")
        }
        return .pem(certificate: certificateData, privateKey: keyData, passphrase: passphrase)
    }

    private static func read(_ path: String, argument: String) throws(UsageError) -> Data {
        try InputFile.requireReadableRegularFile(path, argument: "\(argument) \(path)")
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(argument) \(path): could not be read")
        }
        return data
    }
}
