import FaultEngine
import SquallCore

/// Reads the bodies of the native endpoints with SquallCore's strict JSON reader. Every mistake is a 400 whose
/// message names the JSON path, the line and column, and the problem (`[1].rate (line 1, column 60): expected a
/// size …`).
enum NativeInput {
    /// The keys of a rule that a fired action does not take: it fires once, now, on one connection.
    static let ruleOnlyKeys = ["match", "trigger", "times", "probability", "optional"]
    /// The name a fired action gets when the body gives none.
    static let defaultFireName = "fire"

    /// One fault object or an array of them (`POST /squall/faults`), and whether it was an array. Names must differ
    /// within the array (else 409).
    static func faults(_ body: [UInt8]) throws(ControlAPIError) -> (rules: [FaultRule], isArray: Bool) {
        let document = try parse(body)
        let isArray = if case .array = document.value { true } else { false }
        let rules = try fault(in: document) { () throws(FaultError) in
            isArray ? try FaultRule.list(document.value, path: "") : [try FaultRule(document.value)]
        }
        guard !rules.isEmpty else { throw ControlAPIError(.badRequest, "an empty array adds no fault") }
        var seen: Set<String> = []
        for (index, rule) in rules.enumerated() where !seen.insert(rule.name).inserted {
            let message = located("[\(index)].name", "\"\(rule.name)\" appears twice", in: document)
            throw ControlAPIError(.alreadyExists, message)
        }
        return (rules, isArray)
    }

    /// An action to fire now (`POST /squall/connections/{id}/fire`): a fault object without `match`, `trigger`,
    /// `times`, `probability` or `optional`, whose `name` defaults to "fire".
    static func firedAction(_ body: [UInt8]) throws(ControlAPIError) -> FaultRule {
        let document = try parse(body)
        guard case .object(var object) = document.value else {
            throw ControlAPIError(.badRequest, "expected an action object such as {\"action\": \"reset\"}")
        }
        if let key = ruleOnlyKeys.first(where: { object[$0] != nil }) {
            throw ControlAPIError(.badRequest, "\(key): a fired action takes no \(key); it fires once, now")
        }
        if object["name"] == nil { object["name"] = .string(defaultFireName) }
        let named = JSONValue.object(object)
        return try fault(in: document) { () throws(FaultError) in try FaultRule(named) }
    }

    /// A scenario's `faults` (required; names must differ) and `seed` (optional); other keys are ignored.
    static func scenario(_ body: [UInt8]) throws(ControlAPIError) -> ScenarioFaults {
        let document = try parse(body)
        let scenario = try fault(in: document) { () throws(FaultError) in try ScenarioFaults(document.value) }
        var seen: Set<String> = []
        for (index, rule) in scenario.faults.enumerated() where !seen.insert(rule.name).inserted {
            let message = located("faults[\(index)].name", "\"\(rule.name)\" appears twice", in: document)
            throw ControlAPIError(.badRequest, message)
        }
        return scenario
    }

    /// The JSON document `body` holds.
    static func parse(_ body: [UInt8]) throws(ControlAPIError) -> JSONDocument {
        do {
            return try JSONDocument(parsing: body)
        } catch {
            let prefix = error.code == .syntax ? "the body is not valid JSON: " : ""
            throw ControlAPIError(.badRequest, prefix + error.description)
        }
    }

    /// What `read` returns; its `FaultError` as a 400 naming the path, and the line and column in `document`.
    static func fault<T>(in document: JSONDocument, _ read: () throws(FaultError) -> T) throws(ControlAPIError) -> T {
        do {
            return try read()
        } catch {
            throw ControlAPIError(.badRequest, located(error.path, error.detail, in: document))
        }
    }

    /// `path (line L, column C): detail`, as `JSONError` writes it (the detail alone for the whole body).
    static func located(_ path: String, _ detail: String, in document: JSONDocument) -> String {
        guard !path.isEmpty else { return detail }
        let position = document.position(of: path)
        return JSONError(.invalidValue, path: path, line: position?.line, column: position?.column, detail).description
    }
}

/// The part of a scenario `POST /squall/scenario` and `squall proxy --scenario` read: `faults` (required) and
/// `seed` (optional, up to `UInt64.max`).
public struct ScenarioFaults: Sendable {
    public var faults: [FaultRule]
    public var seed: UInt64?

    /// Reads a scenario document; the error names the JSON path and the problem.
    public static func parse(_ bytes: [UInt8]) throws(ControlAPIError) -> ScenarioFaults {
        try NativeInput.scenario(bytes)
    }

    init(_ document: JSONValue) throws(FaultError) {
        let (faults, seed) = try FaultError.reading { () throws -> ([FaultRule], UInt64?) in
            let reader = try JSONFieldReader(document, path: "", expected: "an object")
            let faults = try reader.require(reader["faults"], "faults", expected: "an array of faults")
            return (try FaultRule.list(faults, path: "faults"), try reader.unsignedInteger("seed"))
        }
        self.faults = faults
        self.seed = seed
    }
}
