/// The `wait` preference of a request's `Prefer` fields (RFC 7240 §4.3): how many seconds the client
/// is willing to wait for the response to carry the finished result.
///
/// Read by bytes, as RFC 7240 §2 writes it: a comma-separated list of `token [ "=" word ]`, each with
/// optional `;` parameters; names are case-insensitive. `respond-async` beside it (§4.1) wins: that
/// client wants the answer at once. A preference that cannot be read is ignored (§2: a server
/// "MUST ignore" what it does not understand), never an error.
struct PreferWait: Equatable {
    /// The wait honoured, at most `maximumSeconds`.
    var seconds: Int

    /// Longer waits are cut to this: a request should not hold a connection for minutes; a client
    /// that wants longer follows the job's event stream.
    static let maximumSeconds = 60

    /// The preference in `fields` (every `Prefer` field of the request); nil when there is none.
    init?(fields: [String]) {
        var wait: Int?
        for field in fields {
            for preference in Array(field.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
                let withoutParameters = preference.split(separator: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false)[0]
                let parts = withoutParameters.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(decoding: Self.trimmed(parts[0]), as: UTF8.self).lowercased()
                if name == "respond-async" { return nil }
                if name == "wait", parts.count == 2, wait == nil {
                    wait = Self.deltaSeconds(Self.unquoted(Self.trimmed(parts[1])))
                }
            }
        }
        guard let wait else { return nil }
        seconds = wait
    }

    /// delta-seconds (RFC 9111 §1.2.2): one or more digits; any value past the maximum is the maximum.
    private static func deltaSeconds(_ bytes: ArraySlice<UInt8>) -> Int? {
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard !bytes.isEmpty, bytes.allSatisfy(digits.contains) else { return nil }
        var value = 0
        for byte in bytes {
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), maximumSeconds)
        }
        return value
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !blank($0) }), let end = bytes.lastIndex(where: { !blank($0) }) else { return [] }
        return bytes[start...end]
    }

    private static func unquoted(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return bytes }
        return bytes.dropFirst().dropLast()
    }
}
