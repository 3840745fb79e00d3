/// A problem with the command line or the files it names, found before anything is transferred.
///
/// Exits with status 2. Thrown from argument validation (where ArgumentParser prints it with the usage)
/// and from reading the files the options name (where `GetCommand` prints it).
struct UsageError: Error, Sendable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
