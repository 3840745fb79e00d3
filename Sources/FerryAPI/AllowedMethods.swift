import Hummingbird
import Synchronization

/// The methods each route path has, so that a request naming a path the API has, with a method it
/// does not, gets 405 and `Allow` (RFC 9110 §15.5.6) rather than 404.
///
/// A path resolves as the router resolves it: the template with the most literal segments wins
/// (`/v1/jobs/batch` before `/v1/jobs/{id}`), and only that template's methods are allowed.
final class AllowedMethods: Sendable {
    private struct Route {
        var segments: [Substring]
        var methods: Set<String>
        var literals: Int { segments.filter { !$0.hasPrefix("{") }.count }
    }

    private let routes = Mutex<[Route]>([])

    /// Takes the router's routes once they are all added.
    func load(_ descriptions: [(path: String, method: String)]) {
        var byPath: [String: Set<String>] = [:]
        for route in descriptions { byPath[route.path, default: []].insert(route.method) }
        routes.withLock { $0 = byPath.map { Route(segments: Self.segments($0.key), methods: $0.value) } }
    }

    /// The methods of the route `path` resolves to, sorted; empty when it resolves to none.
    func methods(for path: String) -> [String] {
        let requested = Self.segments(path)
        let best = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == requested.count
                    && zip(route.segments, requested).allSatisfy { $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 }
            }.max { $0.literals < $1.literals }
        }
        return best.map { $0.methods.sorted() } ?? []
    }

    private static func segments(_ path: String) -> [Substring] {
        path.prefix { $0 != "?" }.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
    }
}
