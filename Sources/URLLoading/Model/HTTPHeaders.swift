/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Order and duplicates are kept as received (`Set-Cookie` may appear many times); lookups ignore case
/// because HTTP field names are case-insensitive.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, Codable {
    public struct Field: Sendable, Equatable, Codable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field] = []

    public init() {}

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            removeAll(name)
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    public mutating func removeAll(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    mutating func appendToLastValue(_ text: String) {
        guard !fields.isEmpty else { return }
        fields[fields.count - 1].value += " " + text
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// Encoded as a list of `{"name", "value"}` objects: order and duplicates survive a round trip.
    public init(from decoder: any Decoder) throws {
        fields = try decoder.singleValueContainer().decode([Field].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields)
    }
}

extension String {
    /// Field names are tokens (RFC 9110 §5.1): ASCII, compared without case.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && equalsIgnoringASCIICase(other)
    }
}
