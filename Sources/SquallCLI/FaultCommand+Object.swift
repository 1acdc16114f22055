import SquallCore

/// Builds a fault object in the scenario vocabulary from command-line words. Nothing is checked beyond the shape
/// of the words: the server validates the fault and names what is wrong.
enum FaultObject {
    /// `{"action": ACTION, KEY: VALUE, …}` from `KEY=VALUE` words; `headers.NAME=VALUE` goes into the `headers`
    /// object, and `status` is sent as a number when it is one.
    static func action(_ action: String, attributes: [String], command: [String]) throws(UsageError)
        -> [String: JSONValue]
    {
        var object: [String: JSONValue] = ["action": .string(action)]
        var headers: [String: JSONValue] = [:]
        for word in attributes {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw UsageError("expected an attribute KEY=VALUE such as rate=64KiB, not '\(word)'", command: command)
            }
            let key = String(word[..<equals])
            let value = String(word[word.index(after: equals)...])
            if key.hasPrefix("headers.") {
                headers[String(key.dropFirst("headers.".count))] = .string(value)
            } else {
                object[key] = key == "status" ? integerOrString(value) : .string(value)
            }
        }
        if !headers.isEmpty { object["headers"] = .object(headers) }
        return object
    }

    /// Adds `match`, `trigger`, `direction`, `times`, `probability` and `optional` from the flags given.
    static func addRuleFlags(
        _ arguments: ParsedArguments, to fault: inout [String: JSONValue], command: [String]
    ) throws(UsageError) {
        let match = self.match(arguments)
        if !match.isEmpty { fault["match"] = .object(match) }
        if let trigger = try trigger(arguments, command: command) { fault["trigger"] = trigger }
        if let direction = arguments["--direction"] { fault["direction"] = .string(direction) }
        if let times = arguments["--times"] { fault["times"] = integerOrString(times) }
        if let probability = arguments["--probability"] {
            fault["probability"] = Double(probability).map(JSONValue.number) ?? .string(probability)
        }
        if arguments.has("--optional") { fault["optional"] = .bool(true) }
    }

    private static func match(_ arguments: ParsedArguments) -> [String: JSONValue] {
        var match: [String: JSONValue] = [:]
        if let method = arguments["--method"] { match["method"] = .string(method) }
        if let path = arguments["--path"] { match["path"] = .string(path) }
        if let header = arguments["--header"] {
            let parts = header.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            var object: [String: JSONValue] = ["name": .string(String(parts[0]))]
            if parts.count > 1 { object["value"] = .string(String(parts[1])) }
            match["header"] = .object(object)
        }
        if let nth = arguments["--nth-request"] { match["nth-request"] = integerOrString(nth) }
        if let nth = arguments["--nth-connection"] { match["nth-connection"] = integerOrString(nth) }
        return match
    }

    private static func trigger(_ arguments: ParsedArguments, command: [String]) throws(UsageError) -> JSONValue? {
        let given = ["--at-offset", "--after", "--after-response-bytes", "--window"].filter { arguments[$0] != nil }
        guard given.count <= 1 else {
            throw UsageError("a fault has one trigger; got \(given.joined(separator: " and "))", command: command)
        }
        if given != ["--at-offset"],
            let flag = ["--announcement", "--announcement-wait"].first(where: { arguments[$0] != nil })
        {
            throw UsageError("\(flag) goes with --at-offset", command: command)
        }
        guard let flag = given.first, let value = arguments[flag] else { return nil }
        let key = String(flag.dropFirst(2))
        switch flag {
        case "--after":
            return .object([key: .string(value)])
        case "--window":
            guard let range = value.range(of: "..") else {
                throw UsageError("--window must be FROM..UNTIL such as 2s..5s, not '\(value)'", command: command)
            }
            var window: [String: JSONValue] = ["until": .string(String(value[range.upperBound...]))]
            if range.lowerBound != value.startIndex { window["from"] = .string(String(value[..<range.lowerBound])) }
            return .object([key: .object(window)])
        default:
            var object: [String: JSONValue] = [key: integerOrString(value)]
            for name in ["--announcement", "--announcement-wait"] {
                if let text = arguments[name] { object[String(name.dropFirst(2))] = .string(text) }
            }
            return .object(object)
        }
    }

    /// A number when `text` is a whole number, else the text (for the server to judge).
    private static func integerOrString(_ text: String) -> JSONValue {
        Int64(text).map(JSONValue.integer) ?? .string(text)
    }
}
