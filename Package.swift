// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Ferry",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "URLLoading", targets: ["URLLoading"]),
        .executable(name: "ferry", targets: ["ferry"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // libcurl through pkg-config; shim.h holds the typed wrappers Swift needs for variadic curl calls.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The session engine: Ferry's URL Loading System on libcurl.
        .target(
            name: "URLLoading",
            dependencies: ["CCurl"]
        ),
        // In-process origin, proxy and SOCKS servers (and an FTP launcher) for tests; loopback only.
        .target(
            name: "URLLoadingTestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        .executableTarget(
            name: "ferry",
            dependencies: [
                "URLLoading",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "URLLoadingTests",
            dependencies: ["URLLoading", "URLLoadingTestSupport"]
        ),
        .testTarget(
            name: "FerryCLITests",
            dependencies: ["URLLoadingTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
