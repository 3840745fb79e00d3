import Foundation
import URLLoadingTestSupport

/// The `ferryd` executable the tests run (see `BuiltExecutable`).
public enum FerrydBinary {
    public static func url() throws -> URL { try BuiltExecutable.url(named: "ferryd") }
}
