import Foundation

/// Cookies on every hop of a transfer, redirects included (CK-02, CK-03): the stored cookies that
/// match each hop's URL go out in its `Cookie` header, and each response's `Set-Cookie` headers are
/// stored under the accept policy before the next hop starts (so a redirect that sets a cookie sends
/// it on). libcurl's own cookie engine stays off: Ferry owns cookies.
///
/// A request that sets its own `Cookie` header keeps it, and no stored cookies are added to it.
struct TransferCookies {
    private let storage: (any CookieStorage)?
    private let acceptPolicy: CookieAcceptPolicy?

    init(configuration: SessionConfiguration) {
        storage = configuration.httpShouldSetCookies ? configuration.httpCookieStorage : nil
        acceptPolicy = configuration.httpCookieAcceptPolicy
    }

    /// `request` as this hop sends it: with the matching stored cookies.
    func adding(to request: TransferRequest) -> TransferRequest {
        guard let storage, request.httpShouldHandleCookies, !request.headers.contains("Cookie"),
            let header = storage.cookieHeader(for: request.url, mainDocumentURL: request.mainDocumentURL, method: request.method)
        else { return request }
        var sent = request
        sent.headers["Cookie"] = header
        return sent
    }

    /// Stores the cookies a hop's response sets.
    func responseArrived(_ headers: HTTPHeaders, for request: TransferRequest) {
        guard let storage, request.httpShouldHandleCookies else { return }
        storage.storeCookies(from: headers, for: request.url, mainDocumentURL: request.mainDocumentURL, policy: acceptPolicy)
    }
}
