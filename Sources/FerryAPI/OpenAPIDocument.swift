/// The OpenAPI 3.1 document of every route `APIRouter` serves, as `GET /openapi.json` sends it, and what
/// `RequestFields` checks request bodies against (a field it does not name is refused).
///
/// The one copy is `Embedded/openapi.json`, a JSON file any OpenAPI tool can read (README, "The API
/// document"); the EmbedFiles plugin compiles its bytes into the binary, so ferryd serves it from any
/// working directory. Keep it in step with the routes: the end-to-end tests check every reply they get
/// against it, and that every route in the router appears in it.
enum OpenAPIDocument {
    /// The file's bytes, exactly as in the source tree.
    static let bytes: [UInt8] = {
        guard let bytes = EmbeddedFiles.all["openapi.json"] else {
            // Only a build without the file gets here; the route and RequestFields cannot do without it.
            preconditionFailure("Sources/FerryAPI/Embedded/openapi.json was not embedded at build time")
        }
        return bytes
    }()

    /// The same bytes as text, for the readers that parse it.
    static let json = String(decoding: bytes, as: UTF8.self)
}
