import Hummingbird

/// `GET /openapi.json`: the API's OpenAPI 3.1 document (`Embedded/openapi.json`, byte for byte), without
/// authentication.
struct OpenAPIRoute {
    func add(to router: Router<GatewayRequestContext>) {
        router.get("/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
        }
    }
}
