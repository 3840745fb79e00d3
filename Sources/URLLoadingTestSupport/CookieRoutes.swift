import NIOHTTP1

/// Cookie routes: `/cookies/` followed by any path, whose last component is the action, so tests
/// choose the path cookies are set from and sent to.
///
/// - `.../set?name=value&...`: `Set-Cookie: name=value; Path=/` for each pair.
/// - `.../raw?a=H1&b=H2...`: each query value is a whole `Set-Cookie` header, sent in parameter-name
///   order (the default Path is then the directory of this route's path).
/// - `.../expire?name=N`: `Set-Cookie: N=; Max-Age=0; Path=/`.
/// - `.../redirect?to=URL&...`: 302 to URL, setting the other parameters as `/set` does.
/// - `.../show`: the request's `Cookie` header as the body (empty without one).
/// - `.../require?name=N`: a page behind a login: 200 with the cookie's value in the body when the
///   request sends cookie N, else 401.
enum CookieRoutes {
    @Sendable
    static func serve(_ request: OriginRequest, _ response: OriginResponder) async throws {
        let action = request.path.split(separator: "/").last.map(String.init) ?? ""
        var headers = HTTPHeaders()
        switch action {
        case "set":
            for (name, value) in request.query.sorted(by: { $0.key < $1.key }) {
                headers.add(name: "set-cookie", value: "\(name)=\(value); Path=/")
            }
        case "raw":
            for (_, value) in request.query.sorted(by: { $0.key < $1.key }) { headers.add(name: "set-cookie", value: value) }
        case "expire":
            guard let name = request.query["name"] else {
                try await response.send(.badRequest, text: "missing name parameter")
                return
            }
            headers.add(name: "set-cookie", value: "\(name)=; Max-Age=0; Path=/")
        case "redirect":
            guard let target = request.query["to"] else {
                try await response.send(.badRequest, text: "missing to parameter")
                return
            }
            for (name, value) in request.query.sorted(by: { $0.key < $1.key }) where name != "to" {
                headers.add(name: "set-cookie", value: "\(name)=\(value); Path=/")
            }
            headers.add(name: "location", value: target)
            try await response.send(.found, text: "redirecting", headers: headers)
            return
        case "show":
            try await response.send(.ok, text: request.header("Cookie") ?? "")
            return
        case "require":
            guard let name = request.query["name"] else {
                try await response.send(.badRequest, text: "missing name parameter")
                return
            }
            let sent = (request.header("Cookie") ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            if let pair = sent.first(where: { $0.hasPrefix(name + "=") }) {
                try await response.send(.ok, text: "welcome, \(pair.dropFirst(name.count + 1))")
            } else {
                try await response.send(.unauthorized, text: "log in first: no \(name) cookie")
            }
            return
        default:
            try await InfoRoutes.notFound(request, response)
            return
        }
        try await response.send(.ok, text: "cookies", headers: headers)
    }
}
