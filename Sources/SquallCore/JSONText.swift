/// JSON text written by hand where key order and layout matter (reports, logs, problem details).
public enum JSONText {
    /// `text` as a JSON string (RFC 8259 §7): in quotes, with quotes, backslashes and control characters escaped.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

extension JSONText {
    /// `value` as JSON text laid out as the catalog's files are: the top object one member per line, an array of
    /// objects one element per line, everything else compact. Object members come in `keyOrder` first, then by
    /// name, so the same value always gives the same text.
    public static func document(_ value: JSONValue, keyOrder: [String] = []) -> String {
        guard case .object(let members) = value else { return compact(value, keyOrder: keyOrder) + "\n" }
        let lines = ordered(members, keyOrder).map { key, member -> String in
            let text: String
            if case .array(let items) = member, !items.isEmpty,
                items.allSatisfy({ if case .object = $0 { true } else { false } })
            {
                text = "[\n" + items.map { "    " + compact($0, keyOrder: keyOrder) }.joined(separator: ",\n") + "\n  ]"
            } else {
                text = compact(member, keyOrder: keyOrder)
            }
            return "  \(quoted(key)): \(text)"
        }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    /// `value` as JSON text on one line (`{"a": 1, "b": [true, null]}`), members ordered as in `document`.
    public static func compact(_ value: JSONValue, keyOrder: [String] = []) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .largeInteger(let number): return String(number)
        case .number(let number): return number.isFinite ? "\(number)" : "null"
        case .string(let text): return quoted(text)
        case .array(let items): return "[" + items.map { compact($0, keyOrder: keyOrder) }.joined(separator: ", ") + "]"
        case .object(let members):
            return "{"
                + ordered(members, keyOrder).map { "\(quoted($0.key)): \(compact($0.value, keyOrder: keyOrder))" }
                .joined(separator: ", ") + "}"
        }
    }

    private static func ordered(_ members: [String: JSONValue], _ keyOrder: [String]) -> [(
        key: String, value: JSONValue
    )] {
        let rank = Dictionary(
            keyOrder.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        return members.sorted { left, right in
            switch (rank[left.key], rank[right.key]) {
            case (let l?, let r?): l < r
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): left.key < right.key
            }
        }.map { ($0.key, $0.value) }
    }
}
