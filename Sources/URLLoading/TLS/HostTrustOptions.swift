import Foundation

/// The per-host TLS settings curl enforces itself, for one hop's server: its public-key pins (TLS-08,
/// TLS-09) and the CAs trusted for it (TLS-02). Where a host has settings of its own, they combine
/// with the session-wide ones and replace them on the hop's handle. curl compares pins and CA blobs
/// before it reuses a connection, so a connection made without them never serves a hop that has them
/// (checked by the server-trust tests against libcurl 7.88.1).
enum HostTrustOptions {
    static func add(to settings: inout HopTLSSettings, configuration: SessionConfiguration,
                    server: ConnectionDecisions.Server, url: URL) throws(TransferError) {
        let hostPins = configuration.hostPinnedPublicKeys.filter { $0.applies(to: server) }
            .reduce(into: Set<String>()) { $0.formUnion($1.pins) }
        if !hostPins.isEmpty {
            // A pin only tightens trust: with session-wide pins as well, the key must satisfy both.
            let pins = configuration.pinnedPublicKeys.isEmpty ? hostPins : hostPins.intersection(configuration.pinnedPublicKeys)
            guard !pins.isEmpty else {
                throw TransferError(.serverCertificateUntrusted,
                                    "no public key can match both the session's pins and the pins for \(server)", failingURL: url)
            }
            settings.pinnedPublicKeys = pins.sorted().joined(separator: ";")
        }

        let authorities = configuration.hostTrustedCAs.filter { $0.applies(to: server) }.map(\.certificatesPEM)
        if !authorities.isEmpty {
            // The blob replaces curl's CA file (and the session's extra CAs, so they are included
            // again); curl still reads its CA directory, which Debian's libcurl has as /etc/ssl/certs:
            // the system store stays trusted, as it does with `additionalTrustedCAsPEM`.
            let bundle = ([configuration.additionalTrustedCAsPEM].compactMap { $0 } + authorities).joined(separator: "\n")
            settings.trustedCAsPEM = bundle
        }
    }
}
