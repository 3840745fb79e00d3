import NIOHTTP1

/// Redirect chains, arbitrary redirects and an endless loop, for the engine's redirect policy.
enum RedirectRoutes {
    /// `/redirect/{n}`: 302 to `/redirect/{n-1}`; `/redirect/0` answers 200 "redirected".
    @Sendable
    static func countdown(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let remaining = Int(request.pathParameter(after: "/redirect/")), remaining >= 0 else {
            try await response.send(.badRequest, text: "redirect count must be a non-negative integer")
            return
        }
        if remaining == 0 {
            try await response.send(.ok, text: "redirected")
        } else {
            try await redirect(response, status: .found, to: "/redirect/\(remaining - 1)")
        }
    }

    /// `/redirect-to?url=U&status=S`: answers S (default 302) with `Location: U`, verbatim,
    /// so U may be absolute or relative.
    @Sendable
    static func redirectTo(_ request: OriginRequest, _ response: OriginResponder) async throws {
        guard let location = request.query["url"] else {
            try await response.send(.badRequest, text: "missing url parameter")
            return
        }
        guard let code = request.integerQuery("status", default: 302), (300...399).contains(code) else {
            try await response.send(.badRequest, text: "status must be a 3xx code")
            return
        }
        try await redirect(response, status: HTTPResponseStatus(statusCode: code), to: location)
    }

    /// `/loop/a` → `/loop/b` → `/loop/a` … forever.
    @Sendable
    static func loop(_ request: OriginRequest, _ response: OriginResponder) async throws {
        switch request.pathParameter(after: "/loop/") {
        case "a": try await redirect(response, status: .found, to: "/loop/b")
        case "b": try await redirect(response, status: .found, to: "/loop/a")
        default: try await InfoRoutes.notFound(request, response)
        }
    }

    private static func redirect(_ response: OriginResponder, status: HTTPResponseStatus, to location: String) async throws {
        try await response.send(status, text: "redirecting to \(location)", headers: ["location": location])
    }
}
