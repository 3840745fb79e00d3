import Foundation
internal import CCurl

/// Applies a request and its session's configuration to an easy handle. Every configuration value a
/// session accepts is applied here (SES-18..SES-23, LC-22).
enum CurlRequestOptions {
    static let userAgent = "Ferry/0.1"
    /// FERRY_CURL_VERBOSE=1 makes curl narrate every transfer on stderr, for diagnosis only: the
    /// narration includes request headers, so credentials would be shown.
    static let verbose = ProcessInfo.processInfo.environment["FERRY_CURL_VERBOSE"] == "1"

    /// curl's receive buffer for a transfer that joins `transfersOnLoop` others: 256 KiB among a few
    /// (fewer, larger reads at full speed), 64 KiB among dozens, curl's default of 16 KiB among
    /// more. A buffer keeps the pages a read once touched, and a transfer keeps its buffer while it
    /// runs: a thousand slow transfers with 256 KiB each crept towards 250 MiB (bench P5); in these
    /// tiers a thousand started one after another hold at most about 22 MiB.
    static func receiveBufferSize(transfersOnLoop: Int) -> Int {
        switch transfersOnLoop {
        case ..<16: 256 << 10
        case ..<64: 64 << 10
        default: 16 << 10
        }
    }

    /// - Parameters:
    ///   - transfersOnLoop: the transfers the loop drives besides this one.
    ///   - proxyHeaderLines: sent to the proxy only, with the CONNECT of a tunnel.
    ///   - acceptsCompressedContent: send `Accept-Encoding` (every codec curl has) and decode the body.
    static func apply(
        to easy: inout EasyHandle, request: TransferRequest, configuration: SessionConfiguration, transfersOnLoop: Int = 0,
        body: RequestBodyReader?, remainingMilliseconds: Int, proxyHeaderLines: [String] = [],
        acceptsCompressedContent: Bool
    ) throws(TransferError) {
        let scheme = request.url.scheme?.lowercased() ?? ""
        let isHTTP = scheme == "http" || scheme == "https"
        guard ["http", "https", "ftp", "ftps", "file"].contains(scheme) else {
            throw TransferError(.unsupportedURL, "the URL scheme '\(scheme)' is not supported", failingURL: request.url)
        }
        try easy.set(CURLOPT_URL, string: request.url.absoluteString, "CURLOPT_URL")
        try easy.set(CURLOPT_PROTOCOLS_STR, string: "http,https,ftp,ftps,file", "CURLOPT_PROTOCOLS_STR")
        try easy.set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        try easy.set(CURLOPT_FOLLOWLOCATION, 0, "CURLOPT_FOLLOWLOCATION")
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1, "CURLOPT_TCP_KEEPALIVE")
        try easy.set(CURLOPT_BUFFERSIZE, receiveBufferSize(transfersOnLoop: transfersOnLoop), "CURLOPT_BUFFERSIZE")
        try easy.set(CURLOPT_UPLOAD_BUFFERSIZE, 256 << 10, "CURLOPT_UPLOAD_BUFFERSIZE")
        // A tunnel's CONNECT response reaches the header callback, which sets it apart (a refusal,
        // such as a 407 challenge, is the only way to see the proxy's Proxy-Authenticate).
        let tunnels = Self.tunnels(request.url, configuration: configuration)
        try easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, tunnels ? 0 : 1, "CURLOPT_SUPPRESS_CONNECT_HEADERS")
        if tunnels, !proxyHeaderLines.isEmpty {
            try easy.setProxyHeaderLines(proxyHeaderLines)
            // The tunnel is authenticated by a header curl does not compare when it reuses connections,
            // and its pool serves every session on the loop: an idle tunnel would carry another
            // session's (another tenant's) requests on this credential. It closes after this transfer.
            try easy.set(CURLOPT_FORBID_REUSE, 1, "CURLOPT_FORBID_REUSE")
        }
        if verbose { try easy.set(CURLOPT_VERBOSE, 1, "CURLOPT_VERBOSE") }

        try applyTimeouts(to: easy, request: request, configuration: configuration, remainingMilliseconds: remainingMilliseconds)
        try applyMethodAndBody(to: easy, request: request, body: body, scheme: scheme, isHTTP: isHTTP)
        if isHTTP {
            try easy.setHeaderLines(try headerLines(request: request, configuration: configuration, body: body))
            if acceptsCompressedContent, !request.headers.contains("Accept-Encoding") {
                try easy.set(CURLOPT_ACCEPT_ENCODING, string: "", "CURLOPT_ACCEPT_ENCODING")
            }
            let version = configuration.httpVersion2Enabled ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1)
            try easy.set(CURLOPT_HTTP_VERSION, version, "CURLOPT_HTTP_VERSION")
            try easy.set(CURLOPT_PIPEWAIT, multiplexes(scheme: scheme, configuration) ? 1 : 0, "CURLOPT_PIPEWAIT")
        }
        if scheme == "ftp" || scheme == "ftps", body == nil {
            try applyFTPResumption(to: easy, request: request)
        }
        try applyTLS(to: easy, configuration: configuration)
        try applyProxy(to: easy, configuration: configuration)
    }

    /// ftp has no headers: a `Range: bytes=N-` (what continuing a download adds, and `ferry get -C -`)
    /// becomes curl's resume offset, sent as REST N. The file's modification time is asked for
    /// (MDTM), so that resume data can record it beside the size curl always asks (SIZE). Downloads
    /// only: curl would ask MDTM before an upload too, and a file not yet there fails it.
    private static func applyFTPResumption(to easy: EasyHandle, request: TransferRequest) throws(TransferError) {
        try easy.set(CURLOPT_FILETIME, 1, "CURLOPT_FILETIME")
        guard let range = request.headers["Range"] else { return }
        let spec = range.trimmingCharacters(in: .whitespaces)
        guard spec.lowercased().hasPrefix("bytes="), spec.hasSuffix("-"),
            let offset = Int64(spec.dropFirst("bytes=".count).dropLast()), offset >= 0
        else {
            throw TransferError(.invalidRequest, "an ftp request takes Range only as bytes=N- (got \(range))", failingURL: request.url)
        }
        try easy.set(CURLOPT_RESUME_FROM_LARGE, offset: offset, "CURLOPT_RESUME_FROM_LARGE")
    }

    /// Whether requests under `scheme` may share one connection (HTTP/2 multiplexing) and so wait for
    /// one to multiplex on. Only where HTTP/2 can be negotiated (https, by ALPN): on plain http the
    /// wait would hold every parallel transfer back until the first one finished.
    static func multiplexes(scheme: String, _ configuration: SessionConfiguration) -> Bool {
        scheme == "https" && configuration.httpVersion2Enabled && configuration.httpShouldUsePipelining
    }

    /// Whether a request to `url` goes through a CONNECT tunnel: https through an http proxy.
    static func tunnels(_ url: URL, configuration: SessionConfiguration) -> Bool {
        configuration.proxy?.kind == .http && url.scheme?.lowercased() == "https"
    }

    /// The idle timeout of a request, in milliseconds (LC-22).
    static func idleTimeout(request: TransferRequest, configuration: SessionConfiguration) -> UInt64 {
        Self.milliseconds(request.timeoutInterval ?? configuration.requestTimeout)
    }

    /// `interval` in whole milliseconds, at least 1; "forever" stays far from overflowing a deadline.
    static func milliseconds(_ interval: TimeInterval) -> UInt64 {
        interval >= Double(UInt64.max / 2000) ? UInt64.max / 2 : UInt64(max(1, (interval * 1000).rounded(.up)))
    }

    private static func applyTimeouts(
        to easy: EasyHandle, request: TransferRequest, configuration: SessionConfiguration, remainingMilliseconds: Int
    ) throws(TransferError) {
        let idle = request.timeoutInterval ?? configuration.requestTimeout
        guard idle > 0 else {
            throw TransferError(.invalidRequest, "the request timeout must be positive", failingURL: request.url)
        }
        let connect = configuration.connectTimeout ?? idle
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, Int(Self.milliseconds(connect)), "CURLOPT_CONNECTTIMEOUT_MS")
        // The idle timeout is Ferry's own (TransferStateMachine.timerFired), not CURLOPT_LOW_SPEED_TIME: curl's
        // check remembers when a transfer became slow across a pause, so a late answer to a decision
        // would time out the moment it arrives.
        try easy.set(CURLOPT_TIMEOUT_MS, max(1, remainingMilliseconds), "CURLOPT_TIMEOUT_MS")
    }

    private static func applyMethodAndBody(
        to easy: EasyHandle, request: TransferRequest, body: RequestBodyReader?, scheme: String, isHTTP: Bool
    ) throws(TransferError) {
        let method = request.method.uppercased()
        guard !method.isEmpty, method.allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" }) else {
            throw TransferError(.invalidRequest, "'\(request.method)' is not a valid method", failingURL: request.url)
        }
        if let body {
            guard scheme != "file" else {
                throw TransferError(.invalidRequest, "uploads to file: URLs are not supported", failingURL: request.url)
            }
            try easy.set(CURLOPT_UPLOAD, 1, "CURLOPT_UPLOAD")
            try easy.set(CURLOPT_INFILESIZE_LARGE, offset: body.length ?? -1, "CURLOPT_INFILESIZE_LARGE")
            if isHTTP, method != "PUT" {
                try easy.set(CURLOPT_CUSTOMREQUEST, string: method, "CURLOPT_CUSTOMREQUEST")
            }
            return
        }
        guard isHTTP else { return }
        switch method {
        case "GET": try easy.set(CURLOPT_HTTPGET, 1, "CURLOPT_HTTPGET")
        case "HEAD": try easy.set(CURLOPT_NOBODY, 1, "CURLOPT_NOBODY")
        case "POST", "PUT", "PATCH":
            // A body-less POST still says Content-Length: 0, as servers expect.
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0, "CURLOPT_POSTFIELDSIZE_LARGE")
            try easy.set(CURLOPT_COPYPOSTFIELDS, string: "", "CURLOPT_COPYPOSTFIELDS")
            if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, string: method, "CURLOPT_CUSTOMREQUEST") }
        default: try easy.set(CURLOPT_CUSTOMREQUEST, string: method, "CURLOPT_CUSTOMREQUEST")
        }
    }

    /// The request's header lines: the session's additional headers first unless the request sets the
    /// same field, lengths computed by curl (UP-08), and none of curl's `Expect: 100-continue` unless
    /// the request asks for it (UP-12).
    static func headerLines(request: TransferRequest, configuration: SessionConfiguration, body: RequestBodyReader?) throws(TransferError) -> [String] {
        var headers = HTTPHeaders()
        for field in configuration.additionalHeaders where !request.headers.contains(field.name) {
            headers.add(name: field.name, value: field.value)
        }
        for field in request.headers { headers.add(name: field.name, value: field.value) }
        headers.removeAll("Content-Length")
        if let type = body?.impliedContentType, !headers.contains("Content-Type") {
            headers["Content-Type"] = type
        }
        if !headers.contains("User-Agent") { headers["User-Agent"] = userAgent }

        var lines: [String] = []
        for field in headers {
            guard isToken(field.name), !field.value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw TransferError(.invalidRequest, "the header '\(field.name)' has an invalid name or value", failingURL: request.url)
            }
            // "Name;" makes curl send a header with an empty value; "Name:" would remove it.
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        if !headers.contains("Expect") { lines.append("Expect:") }
        return lines
    }

    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && scalar.value > 32 && scalar.value < 127 && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains(scalar)
        }
    }

    /// The proxy as curl takes it; an IPv6 literal in brackets. Credentials go in their own options.
    static func proxyURL(_ proxy: SessionConfiguration.Proxy) -> String {
        let host = proxy.host.contains(":") ? "[\(proxy.host)]" : proxy.host
        return "\(proxy.kind == .http ? "http" : "socks5h")://\(host):\(proxy.port)"
    }

    private static func applyProxy(to easy: EasyHandle, configuration: SessionConfiguration) throws(TransferError) {
        guard let proxy = configuration.proxy else {
            // An empty proxy also turns off the http_proxy environment variables.
            try easy.set(CURLOPT_PROXY, string: "", "CURLOPT_PROXY")
            return
        }
        try easy.set(CURLOPT_PROXY, string: proxyURL(proxy), "CURLOPT_PROXY")
        if let username = proxy.username {
            try easy.set(CURLOPT_PROXYUSERNAME, string: username, "CURLOPT_PROXYUSERNAME")
            try easy.set(CURLOPT_PROXYPASSWORD, string: proxy.password ?? "", "CURLOPT_PROXYPASSWORD")
        }
    }
}
