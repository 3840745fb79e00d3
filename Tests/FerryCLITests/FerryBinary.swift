import Foundation
import URLLoadingTestSupport

/// The `ferry` executable the tests run (see `BuiltExecutable`).
enum FerryBinary {
    static func url() throws -> URL { try BuiltExecutable.url(named: "ferry") }
}
