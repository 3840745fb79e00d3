// swift-tools-version:6.1
import PackageDescription

// Products several targets depend on.
let postgresNIO: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let hummingbirdTesting: Target.Dependency = .product(name: "HummingbirdTesting", package: "hummingbird")
let serviceLifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")
let nioHTTPTypes: Target.Dependency = .product(name: "NIOHTTPTypes", package: "swift-nio-extras")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let metrics: Target.Dependency = .product(name: "Metrics", package: "swift-metrics")
let prometheus: Target.Dependency = .product(name: "Prometheus", package: "swift-prometheus")
let tracing: Target.Dependency = .product(name: "Tracing", package: "swift-distributed-tracing")
// swift-otel 1.6.0 does not compile with -sanitize=thread on Swift 6.3.1 (its batch processors then
// fail region-isolation checking: "sending 'logger' risks causing data races"). The Thread Sanitizer
// run of the engine's tests (scripts/test with FERRY_TSAN=1) sets FERRY_WITHOUT_OTEL=1, and ferryd is
// built there without its OTLP exporter; every other build has it.
let withOTel = Context.environment["FERRY_WITHOUT_OTEL"] != "1"
let openAPIRuntime: Target.Dependency = .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")

let package = Package(
    name: "Ferry",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "URLLoading", targets: ["URLLoading"]),
        .library(name: "URLLoadingOpenAPI", targets: ["URLLoadingOpenAPI"]),
        .executable(name: "ferry", targets: ["ferry"]),
        .executable(name: "ferryd", targets: ["ferryd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        // OTLP over HTTP only: the gRPC exporter's packages would double the build for nothing ferryd needs.
    ] + (withOTel ? [.package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"])] : []),
    targets: [
        // libcurl through pkg-config; shim.h holds the typed wrappers Swift needs for variadic curl calls.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // libpsl through pkg-config: the public suffix list cookies are checked against.
        .systemLibrary(
            name: "CPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev"])]
        ),
        // glibc's malloc.h: ferryd limits malloc's arenas at start (mallopt).
        .systemLibrary(name: "CMalloc"),
        // OpenSSL hooks for server trust and client certificates, installed through libcurl (TLS-01, TLS-11),
        // and OpenSSL's SHA-256 for download digests.
        .target(
            name: "CFerryTLS",
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto"), .linkedLibrary("curl")]
        ),
        // The session engine: Ferry's URL Loading System on libcurl.
        .target(
            name: "URLLoading",
            dependencies: ["CCurl", "CPSL", "CFerryTLS", .product(name: "CoreMetrics", package: "swift-metrics")]
        ),
        // A swift-openapi-runtime ClientTransport on the engine, for clients swift-openapi-generator makes.
        .target(
            name: "URLLoadingOpenAPI",
            dependencies: ["URLLoading", httpTypes, openAPIRuntime]
        ),
        // In-process origin, proxy and SOCKS servers (and an FTP launcher) for tests; loopback only.
        .target(
            name: "URLLoadingTestSupport",
            dependencies: [
                nioCore,
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                // MD5 and SHA-256 for the Digest route, independent of the engine's own.
                crypto,
            ]
        ),
        // The typed client of ferryd's API, generated at build time by swift-openapi-generator from
        // Sources/FerryClient/openapi.json, a symlink to the document's one copy in FerryAPI/Embedded.
        .target(
            name: "FerryClient",
            dependencies: [openAPIRuntime, httpTypes],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "ferry",
            dependencies: ["CMalloc", "URLLoading", "URLLoadingOpenAPI", "FerryClient", openAPIRuntime, httpTypes, argumentParser]
        ),
        // The gateway, in layers whose dependencies draw the architecture (README, "Layout"): a wrong
        // arrow does not compile.
        // The embedded PostgreSQL supervisor: a private cluster under the data directory.
        .target(
            name: "FerryPrivatePostgres",
            dependencies: [postgresNIO, crypto, logging]
        ),
        // The domain: jobs, sessions, tenants, callers, decisions, their state machines, GatewayError.
        .target(
            name: "FerryModel",
            dependencies: ["URLLoading", crypto, tracing]
        ),
        // What the gateway records, through swift-metrics (any backend), and the Prometheus registry
        // behind `/metrics` that ferryd records into.
        .target(name: "FerryMetrics", dependencies: ["FerryModel", "URLLoading", metrics, prometheus]),
        // The vault's keys and sealing.
        .target(
            name: "FerryVault",
            dependencies: ["FerryModel", crypto, logging]
        ),
        // Every SQL statement, repositories by aggregate, migrations, the files under the data directory.
        // Embedded/migrations holds the schema's SQL files, compiled in so ferryd needs no folder beside it.
        .target(
            name: "FerryStore",
            dependencies: [
                "FerryModel", "FerryVault", "FerryMetrics", "FerryPrivatePostgres", "URLLoading", postgresNIO, crypto, logging,
                serviceLifecycle, tracing,
            ],
            exclude: ["Embedded"],
            plugins: ["EmbedFiles"]
        ),
        // The job runtime: workers, the runner, the engine's outfitters, retries, decisions.
        .target(
            name: "FerryRuntime",
            dependencies: [
                "FerryModel", "FerryVault", "FerryStore", "FerryMetrics", "URLLoading", crypto, logging,
                serviceLifecycle, tracing,
            ]
        ),
        // Signed webhook deliveries.
        .target(
            name: "FerryWebhooks",
            dependencies: ["FerryModel", "FerryStore", "FerryMetrics", "URLLoading", logging, serviceLifecycle, tracing]
        ),
        // Files under a target's Embedded/ folder compiled into it as bytes (`EmbeddedFiles.all`): the
        // plugin, and the tool it runs at build time.
        .executableTarget(name: "embed-files"),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["embed-files"]),
        // The HTTP API: routes, DTOs, the OpenAPI document; ProblemMiddleware turns GatewayError into HTTP.
        // Embedded/openapi.json is the API's OpenAPI document (its one copy), served at /openapi.json;
        // Embedded/console holds the operator console's HTML, CSS and JavaScript, served under /console.
        .target(
            name: "FerryAPI",
            dependencies: [
                "FerryModel", "FerryVault", "FerryStore", "FerryMetrics", "URLLoading",
                crypto, logging, hummingbird, serviceLifecycle, httpTypes, metrics, tracing,
            ],
            exclude: ["Embedded"],
            plugins: ["EmbedFiles"]
        ),
        // The composition root: configuration, and buildApplication(configuration:).
        .target(
            name: "FerryGateway",
            dependencies: [
                "FerryModel", "FerryVault", "FerryStore", "FerryMetrics", "FerryRuntime", "FerryWebhooks", "FerryAPI",
                "FerryPrivatePostgres", "URLLoading", postgresNIO, logging, hummingbird, nioCore, nioHTTP1, nioHTTPTypes, httpTypes,
                serviceLifecycle, tracing,
            ]
        ),
        .executableTarget(
            name: "ferryd",
            dependencies: [
                "CMalloc", "FerryGateway", "FerryMetrics", "FerryStore", "FerryVault", "FerryPrivatePostgres", argumentParser,
                logging, hummingbird, postgresNIO, serviceLifecycle, tracing,
            ] + (withOTel ? [.product(name: "OTel", package: "swift-otel")] : []),
            // TraceExport compiles its exporter only where the package is (`#if FERRY_OTEL`).
            swiftSettings: withOTel ? [.define("FERRY_OTEL")] : []
        ),
        // bench/ P4: the smallest Hummingbird server (one GET route, fixed JSON), the baseline
        // ferryd's GET /v1/jobs/{id} is compared with.
        .executableTarget(
            name: "minimal-route",
            dependencies: [hummingbird],
            path: "bench/MinimalRoute"
        ),
        // A real ferryd for end-to-end tests, on a throwaway PostgreSQL database: shared by the gateway's
        // tests and the `ferry` client's.
        .target(
            name: "FerrydTestSupport",
            dependencies: ["FerryGateway", "FerryStore", "FerryPrivatePostgres", "URLLoadingTestSupport", postgresNIO, logging]
        ),
        .testTarget(
            name: "FerryGatewayTests",
            dependencies: [
                "FerryGateway", "FerryAPI", "FerryWebhooks", "FerryRuntime", "FerryStore", "FerryVault", "FerryMetrics",
                "FerryModel", "FerryPrivatePostgres", "FerrydTestSupport", "URLLoadingTestSupport", postgresNIO, logging,
                // The router's own list of routes, to check the OpenAPI document covers every one.
                hummingbird,
                // Route tests: the application's router without a server (`app.test(.router)`).
                hummingbirdTesting,
            ]
        ),
        .testTarget(
            name: "URLLoadingTests",
            dependencies: [
                "URLLoading",
                "URLLoadingTestSupport",
                // An independent SHA-256, to check the digests the engine computes while writing.
                crypto,
                // swift-metrics' recording backend, to read what the engine recorded.
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                "URLLoadingOpenAPI",
                openAPIRuntime,
                httpTypes,
            ]
        ),
        .testTarget(
            name: "FerryCLITests",
            dependencies: [
                "URLLoadingTestSupport", "FerrydTestSupport",
                // The generated client against a real ferryd: it decodes what ferryd answers.
                "FerryClient", "URLLoadingOpenAPI", openAPIRuntime,
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
