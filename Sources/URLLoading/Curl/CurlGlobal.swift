internal import CCurl

/// libcurl's process-wide initialisation, done exactly once before the first handle is made.
///
/// `curl_global_init` is not thread-safe; a Swift global's initialiser runs once, under a lock.
enum CurlGlobal {
    private static let initialised: Bool = {
        curl_global_init(FERRY_GLOBAL_DEFAULT) == CURLE_OK
    }()

    static func ensureInitialised() {
        precondition(initialised, "libcurl failed to initialise")
    }

    /// "libcurl/7.88.1 OpenSSL/3.0.19 ..."
    static var versionDescription: String {
        ensureInitialised()
        return String(cString: curl_version())
    }
}
