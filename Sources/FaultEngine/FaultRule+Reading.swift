import SquallCore

extension FaultRule {
    static let ruleKeys = ["name", "match", "trigger", "action", "direction", "times", "probability", "optional"]

    /// Reads one fault of a scenario's `faults` array (or of the control API) at `path`, strictly: unknown keys,
    /// keys that do not belong to the action, wrong types and invalid definitions are `FaultError`s naming the
    /// JSON path.
    ///
    /// ```json
    /// {"name": "cut-at-40", "match": {"method": "PATCH", "path": "/uploads/*"},
    ///  "trigger": {"at-offset": "40%"}, "action": "reset", "times": 1, "probability": 0.5}
    /// {"name": "slow-down", "action": "bandwidth", "rate": "64KiB", "direction": "upstream"}
    /// {"name": "busy", "match": {"nth-request": 2}, "action": "respond", "status": 503,
    ///  "headers": {"Retry-After": "1"}, "optional": true}
    /// ```
    /// `match` defaults to matching everything, `trigger` to `"on-match"`, `times` to unlimited, `probability`
    /// to 1 and `optional` to false. `FaultAction.decode(named:from:)` lists each action's keys.
    public init(_ value: JSONValue, path: String = "") throws(FaultError) {
        self = try FaultError.reading { try Self.read(value, path: path) }
    }

    /// The one fault `text` holds (see `init(_:path:)`); a syntax error or a duplicate key is a `FaultError` too.
    public static func parse(_ text: String) throws(FaultError) -> FaultRule {
        try FaultRule(try document(Array(text.utf8)))
    }

    /// The faults of the JSON array `text` holds, each error's path starting at its index (`[1].probability`).
    public static func parseList(_ text: String) throws(FaultError) -> [FaultRule] {
        try list(try document(Array(text.utf8)), path: "")
    }

    /// The faults of the array `value`, at `path`.
    public static func list(_ value: JSONValue, path: String) throws(FaultError) -> [FaultRule] {
        try FaultError.reading {
            try value.elements(at: path, expected: "an array of faults").enumerated().map { index, element in
                try FaultRule(element, path: JSONPath.index(path, index))
            }
        }
    }

    static func document(_ bytes: [UInt8]) throws(FaultError) -> JSONValue {
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw FaultError(error)
        }
    }

    private static func read(_ value: JSONValue, path: String) throws -> FaultRule {
        let reader = try JSONFieldReader(value, path: path, expected: "a fault object")
        let actionName = try reader.require(try reader.string("action"), "action", expected: "an action name")
        guard let actionKeys = FaultAction.keysByName[actionName] else {
            let known = FaultAction.keysByName.keys.sorted().joined(separator: ", ")
            throw FaultError(
                .unknownAction, path: reader.path("action"), "unknown action \"\(actionName)\"; known: \(known)")
        }
        try reader.rejectUnknownKeys((ruleKeys + actionKeys).sorted(), context: "a \"\(actionName)\" fault")
        let direction = try reader.string("direction").map { text in
            guard let direction = FaultDirection(rawValue: text) else {
                throw FaultError(.invalidValue, path: reader.path("direction"), "expected upstream, downstream or both")
            }
            return direction
        }
        let name = try reader.require(try reader.string("name"), "name", expected: "a name")
        let match = try reader.read("match") { value, path in try FaultMatch.read(value, path: path) } ?? FaultMatch()
        let trigger = try reader.read("trigger") { value, path in try FaultTrigger.read(value, path: path) } ?? .onMatch
        let action = try FaultAction.decode(named: actionName, from: reader)
        let times = try reader.int("times")
        let probability = try reader.double("probability") ?? 1
        let optional = try reader.bool("optional") ?? false
        do {
            return try FaultRule(
                name: name, match: match, trigger: trigger, action: action, direction: direction, times: times,
                probability: probability, optional: optional)
        } catch {
            // Validation names paths relative to the rule; anchor them at the rule's place in the document.
            throw FaultError(error.code, path: error.path.isEmpty ? path : reader.path(error.path), error.detail)
        }
    }
}
