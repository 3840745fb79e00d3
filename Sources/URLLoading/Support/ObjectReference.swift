/// A shared object held by a value type that is `Equatable`: equal when it is the same object. Lets
/// `SessionConfiguration` hold storages (cookies, cache) that sessions share by reference.
struct ObjectReference<Value: Sendable>: Sendable, Equatable {
    let value: Value
    private let identity: ObjectIdentifier

    init(_ value: Value, identity: AnyObject) {
        self.value = value
        self.identity = ObjectIdentifier(identity)
    }

    static func == (lhs: ObjectReference, rhs: ObjectReference) -> Bool { lhs.identity == rhs.identity }
}
