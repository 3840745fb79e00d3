/// A configuration value as written by the operator, with where it came from ("FERRY_PORT" or
/// "--port"), so that a complaint about it names the thing the operator has to fix.
struct ConfigurationValue: Sendable, Equatable {
    let text: String
    let origin: String

    /// The flag's value when the flag was given (flags win), otherwise the environment variable's.
    ///
    /// An empty environment variable counts as unset: compose files and shell scripts commonly export
    /// `FERRY_DATABASE_URL=` to mean "none". An empty flag is a value (and usually an invalid one),
    /// because typing `--port ''` is deliberate.
    static func lookup(flag: String?, flagName: String, environment: [String: String], variable: String) -> ConfigurationValue? {
        if let flag {
            return ConfigurationValue(text: flag, origin: flagName)
        }
        if let text = environment[variable], !text.isEmpty {
            return ConfigurationValue(text: text, origin: variable)
        }
        return nil
    }
}
