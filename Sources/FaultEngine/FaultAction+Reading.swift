import SquallCore

extension FaultAction {
    /// The keys each action reads beside the rule's own, by action name (scenario files keep them flat on the
    /// rule: `{"action": "latency", "latency": "250ms", "jitter": "50ms"}`), as its family lists them.
    static var keysByName: [String: Set<String>] { FaultFamilies.keysByName }

    /// Reads the action named `name` (one of `keysByName`) and its keys from the rule's object, as its family does.
    static func decode(named name: String, from reader: JSONFieldReader) throws -> FaultAction {
        guard let family = FaultFamilies.family(named: name) else {
            preconditionFailure("action \(name) has no family; check keysByName first")
        }
        return try family.read(name, reader)
    }
}
