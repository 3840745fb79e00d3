import Foundation
internal import CFerryTLS

/// The Swift functions the C hooks call (see CFerryTLS.h), registered once.
enum TLSCallbacks {
    private static let registration: Void = {
        ferry_tls_set_callbacks(trustCallback, clientCertificateCallback, releaseCallback)
    }()

    static func register() { _ = registration }
}

private func hook(_ owner: UnsafeMutableRawPointer) -> TLSHandshakeHook {
    Unmanaged<TLSHandshakeHook>.fromOpaque(owner).takeUnretainedValue()
}

private let trustCallback: ferry_tls_trust_callback = { owner, peer in
    let peer = peer.pointee
    let chain = (0..<Int(peer.count)).map { Data(bytes: peer.certificates[$0], count: peer.lengths[$0]) }
    let trusted = hook(owner).decideTrust(
        chain: chain, chainVerified: peer.chain_verified == 1, chainError: peer.chain_error.map { String(cString: $0) },
        hostMatches: peer.host_matches == 1)
    return trusted ? 1 : 0
}

private let clientCertificateCallback: ferry_tls_client_certificate_callback = { owner in
    hook(owner).continuesWithoutClientCertificate() ? 1 : 0
}

private let releaseCallback: ferry_tls_release_callback = { owner in
    Unmanaged<TLSHandshakeHook>.fromOpaque(owner).release()
}
