/// A statement did not do what it always does (an INSERT ... RETURNING that returned nothing): a bug
/// or a broken database, never the caller's fault. The API answers it with a 500 and logs it.
struct StoreInvariantError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
