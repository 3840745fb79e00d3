/// Why a test server could not be started or used.
public enum TestServerError: Error, CustomStringConvertible, Sendable {
    case couldNotBind
    case toolMissing(path: String)
    case toolFailed(command: String, status: Int32, standardError: String)
    case serverDidNotStart(String)

    public var description: String {
        switch self {
        case .couldNotBind:
            "could not bind a listening socket on 127.0.0.1"
        case .toolMissing(let path):
            "required tool not found at \(path)"
        case .toolFailed(let command, let status, let standardError):
            "\(command) failed with status \(status): \(standardError)"
        case .serverDidNotStart(let reason):
            "test server did not start: \(reason)"
        }
    }
}
