extension FaultRule: Decodable {
    private static let ruleKeys: Set<String> = [
        "name", "match", "trigger", "action", "direction", "times", "probability", "optional",
    ]

    /// Reads one fault of a scenario's `faults` array (or of the control API), strictly: unknown keys, keys that
    /// do not belong to the action, wrong types and invalid definitions are `FaultError`s naming the path.
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
    public init(from decoder: any Decoder) throws {
        let reader = try FieldReader(decoder, expected: "a fault object")
        let actionName = try reader.require(try reader.string("action"), "action", expected: "an action name")
        guard let actionKeys = FaultAction.keysByName[actionName] else {
            let known = FaultAction.keysByName.keys.sorted().joined(separator: ", ")
            throw FaultError(
                .unknownAction, path: reader.path("action"), "unknown action \"\(actionName)\"; known: \(known)")
        }
        try reader.rejectUnknownKeys(allowed: Self.ruleKeys.union(actionKeys), context: "a \"\(actionName)\" fault")
        let direction = try reader.string("direction").map { text in
            guard let direction = FaultDirection(rawValue: text) else {
                throw FaultError(.invalidValue, path: reader.path("direction"), "expected upstream, downstream or both")
            }
            return direction
        }
        let name = try reader.require(try reader.string("name"), "name", expected: "a name")
        let match = try reader.decode(FaultMatch.self, "match", expected: "a match object") ?? FaultMatch()
        let trigger = try reader.decode(FaultTrigger.self, "trigger", expected: "a trigger") ?? .onMatch
        let action = try FaultAction.decode(named: actionName, from: reader)
        let times = try reader.int("times")
        let probability = try reader.double("probability") ?? 1
        let optional = try reader.bool("optional") ?? false
        do {
            try self.init(
                name: name, match: match, trigger: trigger, action: action, direction: direction, times: times,
                probability: probability, optional: optional)
        } catch {
            // Validation names paths relative to the rule; anchor them at the rule's place in the document.
            throw FaultError(error.code, path: reader.path(error.path), error.detail)
        }
    }
}
