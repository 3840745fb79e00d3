/// A minimal JSON writer that keeps keys in the order given.
///
/// Foundation's encoders either scramble or sort keys; the echo document reads best, and
/// diffs best in test failures, in the order the routes document.
indirect enum JSONText {
    case null
    case number(Int)
    case string(String)
    case array([JSONText])
    case object([(String, JSONText)])

    var rendered: String {
        var output = ""
        render(into: &output)
        return output
    }

    private func render(into output: inout String) {
        switch self {
        case .null:
            output += "null"
        case .number(let value):
            output += String(value)
        case .string(let value):
            Self.renderString(value, into: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += ", " }
                element.render(into: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += ", " }
                Self.renderString(key, into: &output)
                output += ": "
                value.render(into: &output)
            }
            output += "}"
        }
    }

    private static func renderString(_ value: String, into output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
