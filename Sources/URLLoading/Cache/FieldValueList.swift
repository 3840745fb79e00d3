/// The members of a list-based field value (RFC 9110 §5.6.1): split at commas, except those inside a
/// quoted string (`no-cache="Set-Cookie, Foo"`, `W/"a,b"`), members left untrimmed.
enum FieldValueList {
    static func members(_ value: String) -> [Substring] {
        var members: [Substring] = []
        var start = value.startIndex
        var quoted = false
        for index in value.indices {
            switch value[index] {
            case "\"": quoted.toggle()
            case "," where !quoted:
                members.append(value[start..<index])
                start = value.index(after: index)
            default: break
            }
        }
        members.append(value[start...])
        return members
    }
}
