import FerryModel
import FerryVault
import FerryWebhooks
import Foundation

/// Turns configuration text into typed values, or into one sentence saying what was expected and
/// what was given.
extension ConfigurationValue {
    package func integer(in range: ClosedRange<Int>) throws(GatewayConfigurationError) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let number = Int(trimmed), range.contains(number) else {
            throw GatewayConfigurationError(
                "\(origin) must be a number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// true/false, 1/0, yes/no, on/off in any letter case: the spellings people put in env files.
    package func boolean() throws(GatewayConfigurationError) -> Bool {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default:
            throw GatewayConfigurationError("\(origin) must be true or false (or 1/0, yes/no), got '\(text)'")
        }
    }

    /// An IP address or a host name to listen on. Only the shape is checked here; whether it can
    /// be bound is found out (and reported) when the server starts.
    package func listenHost() throws(GatewayConfigurationError) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-:_%[]"))
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ allowed.contains($0) && $0.isASCII }) else {
            throw GatewayConfigurationError("\(origin) must be an IP address or a host name, got '\(text)'")
        }
        // "[::1]" is how IPv6 addresses appear in URLs; the listener wants the bare address.
        if text.hasPrefix("["), text.hasSuffix("]") {
            return String(text.dropFirst().dropLast())
        }
        return text
    }

    /// A directory path, made absolute against `currentDirectory` (so that later changes of the
    /// working directory cannot move it) and with `.`/`..` resolved.
    package func absolutePath(against currentDirectory: String) throws(GatewayConfigurationError) -> String {
        guard !text.isEmpty, !text.contains("\0") else {
            throw GatewayConfigurationError("\(origin) must be a directory path, got '\(text)'")
        }
        return ConfigurationValue.absolutePath(text, against: currentDirectory)
    }

    package static func absolutePath(_ path: String, against currentDirectory: String) -> String {
        let base = URL(fileURLWithPath: currentDirectory, isDirectory: true)
        return URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL.path
    }

    /// An API key for the admin. It ends up in an `Authorization` header, where spaces and control
    /// characters cannot travel; a trailing newline is the usual result of `$(cat keyfile)`-style
    /// mistakes, so it is refused rather than silently trimmed. The value is never repeated.
    package func adminKey() throws(GatewayConfigurationError) -> Secret {
        let refused = CharacterSet.whitespacesAndNewlines.union(.controlCharacters)
        guard text.unicodeScalars.allSatisfy({ !refused.contains($0) }) else {
            throw GatewayConfigurationError("\(origin) must not contain spaces, line breaks or control characters")
        }
        return Secret(text)
    }

    /// Waits between webhook attempts, like `5s,5m,30m,2h`.
    package func webhookRetrySchedule() throws(GatewayConfigurationError) -> WebhookRetrySchedule {
        guard let schedule = WebhookRetrySchedule(parsing: text) else {
            throw GatewayConfigurationError("\(origin) must be durations like 5s,5m,2h,1d separated by commas, got '\(text)'")
        }
        return schedule
    }

    /// Vault keys, newest first, separated by commas; each checked, never echoed in a message.
    package func vaultKeys() throws(GatewayConfigurationError) -> [Secret] {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !parts.isEmpty else { throw GatewayConfigurationError("\(origin) must hold at least one key") }
        for (index, part) in parts.enumerated() {
            do {
                _ = try VaultKey(base64: part)
            } catch {
                throw GatewayConfigurationError("\(origin): key \(index + 1) is invalid: \(error)")
            }
        }
        return parts.map(Secret.init)
    }
}
