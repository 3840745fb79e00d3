import Foundation
import URLLoadingTestSupport

/// The `ferryd` executable the tests run (see `BuiltExecutable`).
enum FerrydBinary {
    static func url() throws -> URL { try BuiltExecutable.url(named: "ferryd") }
}
