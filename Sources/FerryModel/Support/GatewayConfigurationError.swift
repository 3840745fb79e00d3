/// One or more configuration values were invalid. `problems` holds one sentence each, naming the
/// variable or flag and the value it got (except for secrets, whose values are never repeated).
public struct GatewayConfigurationError: Error, Equatable, CustomStringConvertible {
    public let problems: [String]

    public init(problems: [String]) {
        self.problems = problems
    }

    public init(_ problem: String) {
        self.problems = [problem]
    }

    public var description: String { problems.joined(separator: "\n") }
}
