/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field, as the server sent it
/// (RFC 9110 §11.6.1): a scheme and either auth-params or a token68.
struct ParsedChallenge: Sendable, Equatable {
    /// Lower-cased ("basic", "digest", "bearer", ...).
    var scheme: String
    /// Parameter names lower-cased; values unquoted and unescaped.
    var parameters: [String: String] = [:]
    var token68: String?

    var realm: String? { parameters["realm"] }

    /// The method a client answers this challenge with; nil for schemes the engine does not know.
    var authenticationMethod: AuthenticationMethod? {
        switch scheme {
        case "basic": .httpBasic
        case "digest": .httpDigest
        case "bearer": .bearer
        case "ntlm": .ntlm
        case "negotiate": .negotiate
        default: nil
        }
    }

    /// Every challenge in the field's values, in the order the server sent them. A field may hold
    /// several challenges separated by commas, and commas also separate one challenge's parameters:
    /// a name followed by `=` is a parameter, a name followed by anything else starts the next
    /// challenge. Quoted strings may hold commas, `=` and escaped quotes.
    static func parse(fieldValues: [String]) -> [ParsedChallenge] {
        fieldValues.flatMap { parse(fieldValue: $0) }
    }

    static func parse(fieldValue: String) -> [ParsedChallenge] {
        var cursor = ChallengeCursor(Array(fieldValue))
        var challenges: [ParsedChallenge] = []
        while true {
            cursor.skip(commas: true)
            if cursor.atEnd { break }
            guard let scheme = cursor.token() else {
                // Not a token: malformed; skip the character rather than give up on what follows.
                cursor.advance()
                continue
            }
            var challenge = ParsedChallenge(scheme: scheme.lowercased())
            cursor.skip(commas: false)
            let afterScheme = cursor.position
            if let token68 = cursor.token68(), cursor.atChallengeItemEnd {
                challenge.token68 = token68
            } else {
                cursor.position = afterScheme
                while let (name, value) = cursor.parameter() {
                    // The first of repeated names wins, as for every other duplicated parameter.
                    if challenge.parameters[name.lowercased()] == nil { challenge.parameters[name.lowercased()] = value }
                }
            }
            challenges.append(challenge)
        }
        return challenges
    }
}

/// Walks a challenge field's characters.
private struct ChallengeCursor {
    let characters: [Character]
    var position = 0

    init(_ characters: [Character]) {
        self.characters = characters
    }

    var atEnd: Bool { position >= characters.count }
    var current: Character? { atEnd ? nil : characters[position] }

    mutating func advance() { position += 1 }

    mutating func skip(commas: Bool) {
        while let character = current, character == " " || character == "\t" || (commas && character == ",") { advance() }
    }

    /// After optional whitespace: the end, or a comma.
    var atChallengeItemEnd: Bool {
        var probe = position
        while probe < characters.count, characters[probe] == " " || characters[probe] == "\t" { probe += 1 }
        return probe >= characters.count || characters[probe] == ","
    }

    mutating func token() -> String? {
        let start = position
        while let character = current, Self.isTokenCharacter(character) { advance() }
        return position > start ? String(characters[start..<position]) : nil
    }

    mutating func token68() -> String? {
        let start = position
        while let character = current, character.isASCII, character.isLetter || character.isNumber || "-._~+/".contains(character) {
            advance()
        }
        guard position > start else { return nil }
        while current == "=" { advance() }
        return String(characters[start..<position])
    }

    /// `name = value` (value a token or a quoted string), after optional commas; nil, with the position
    /// unchanged, when what follows is not a parameter (the next challenge's scheme, or the end).
    mutating func parameter() -> (String, String)? {
        let start = position
        skip(commas: true)
        guard let name = token() else {
            position = start
            return nil
        }
        skip(commas: false)
        guard current == "=" else {
            position = start
            return nil
        }
        advance()
        skip(commas: false)
        let value = current == "\"" ? quotedString() : token() ?? ""
        return (name, value)
    }

    /// A quoted string starting at the current `"`; an unterminated one runs to the end.
    mutating func quotedString() -> String {
        advance()
        var text = ""
        while let character = current {
            advance()
            if character == "\\" {
                if let escaped = current {
                    text.append(escaped)
                    advance()
                }
            } else if character == "\"" {
                return text
            } else {
                text.append(character)
            }
        }
        return text
    }

    static func isTokenCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "!#$%&'*+-.^_`|~".contains(character))
    }
}
