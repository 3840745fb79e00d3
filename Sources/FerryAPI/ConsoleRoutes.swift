import Foundation
import HTTPTypes
import Hummingbird

/// `GET /console` and `GET /console/{asset}`: the operator console, a page of plain HTML, CSS and
/// JavaScript that signs in with an API key and then uses only the public `/v1` API. Serving the page
/// needs no key: it holds no data.
struct ConsoleRoutes {
    let assets: ConsoleAssets

    /// Scripts, styles, images and API calls from this origin only; no inline script or style, no
    /// plugin, no framing, no `<base>`, forms post nowhere else. A script injected into a job's URL or
    /// a problem's detail cannot run even if a bug rendered it as HTML.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    func add(to router: Router<GatewayRequestContext>) {
        router.get("/console") { request, _ in try response("index.html", request) }
        router.get("/console/{asset}") { request, context in
            try response(context.parameters.get("asset") ?? "", request)
        }
    }

    private func response(_ name: String, _ request: Request) throws -> Response {
        guard let asset = assets.assets[name] else { throw Problem.notFound("console file '\(name)'") }
        var headers: HTTPFields = [
            .contentSecurityPolicy: Self.contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            // Revalidated on every load (a 304 while unchanged): a new ferryd's console is never mixed
            // with a cached older script.
            .cacheControl: "no-cache",
            .eTag: asset.eTag,
        ]
        if let tags = request.headers[.ifNoneMatch], tags.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.eTag }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        headers[.contentLength] = String(asset.bytes.readableBytes)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: asset.bytes))
    }
}
