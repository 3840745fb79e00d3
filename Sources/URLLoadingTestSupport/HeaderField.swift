/// One header line as it arrived, in its original order and spelling.
///
/// Headers are kept as an ordered list rather than a dictionary because tests
/// check ordering, duplicates and the exact case a client sent.
public struct HeaderField: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name): \(value)" }
}

extension Array where Element == HeaderField {
    /// The first value of the header called `name`, compared case-insensitively.
    public func value(for name: String) -> String? {
        first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of the header called `name`, in arrival order, compared case-insensitively.
    public func values(for name: String) -> [String] {
        filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}
