import FaultEngine
import Foundation

/// Reads the bodies of the native endpoints. Every mistake is a 400 whose message names the JSON path and the
/// problem (`[1].rate: "fast" is not a size …`), from `FaultError` or from the JSON decoder.
enum NativeInput {
    /// The keys of a rule that a fired action does not take: it fires once, now, on one connection.
    static let ruleOnlyKeys = ["match", "trigger", "times", "probability", "optional"]
    /// The name a fired action gets when the body gives none.
    static let defaultFireName = "fire"

    /// One fault object or an array of them (`POST /squall/faults`), and whether it was an array. Names must differ
    /// within the array (else 409).
    static func faults(_ body: [UInt8]) throws(ControlAPIError) -> (rules: [FaultRule], isArray: Bool) {
        let isArray = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "[")
        let rules = isArray ? try decode([FaultRule].self, body) : [try decode(FaultRule.self, body)]
        guard !rules.isEmpty else { throw ControlAPIError(.badRequest, "an empty array adds no fault") }
        var seen: Set<String> = []
        for (index, rule) in rules.enumerated() where !seen.insert(rule.name).inserted {
            throw ControlAPIError(.alreadyExists, "[\(index)].name: \"\(rule.name)\" appears twice")
        }
        return (rules, isArray)
    }

    /// An action to fire now (`POST /squall/connections/{id}/fire`): a fault object without `match`, `trigger`,
    /// `times`, `probability` or `optional`, whose `name` defaults to "fire".
    static func firedAction(_ body: [UInt8]) throws(ControlAPIError) -> FaultRule {
        let parsed = try? JSONSerialization.jsonObject(with: Data(body))
        guard var object = parsed as? [String: Any] else {
            throw ControlAPIError(.badRequest, "expected an action object such as {\"action\": \"reset\"}")
        }
        if let key = ruleOnlyKeys.first(where: { object[$0] != nil }) {
            throw ControlAPIError(.badRequest, "\(key): a fired action takes no \(key); it fires once, now")
        }
        if object["name"] == nil { object["name"] = defaultFireName }
        guard let named = try? JSONSerialization.data(withJSONObject: object) else {
            throw ControlAPIError(.badRequest, "expected an action object such as {\"action\": \"reset\"}")
        }
        return try decode(FaultRule.self, Array(named))
    }

    /// A scenario's `faults` (required; names must differ) and `seed` (optional); other keys are ignored.
    static func scenario(_ body: [UInt8]) throws(ControlAPIError) -> ScenarioFaults {
        let scenario = try decode(ScenarioFaults.self, body)
        var seen: Set<String> = []
        for (index, rule) in scenario.faults.enumerated() where !seen.insert(rule.name).inserted {
            throw ControlAPIError(.badRequest, "faults[\(index)].name: \"\(rule.name)\" appears twice")
        }
        return scenario
    }

    /// Decodes `body`; a `FaultError` keeps its path, a decoder error gets one rendered from its coding path.
    static func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws(ControlAPIError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let error as FaultError {
            throw ControlAPIError(.badRequest, error.description)
        } catch let error as DecodingError {
            throw ControlAPIError(.badRequest, message(error))
        } catch {
            throw ControlAPIError(.badRequest, "the body is not valid JSON")
        }
    }

    private static func message(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return located(context.codingPath, "expected \(description(of: type))")
        case .keyNotFound(let key, let context):
            return located(context.codingPath + [key], "missing")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "the body is not valid JSON"
        case .dataCorrupted(let context):
            return located(context.codingPath, context.debugDescription)
        @unknown default:
            return "the body does not fit the endpoint"
        }
    }

    private static func description(of type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Array") { return "an array" }
        if name.hasPrefix("Dictionary") { return "an object" }
        if type == UInt64.self { return "a whole number from 0 to 18446744073709551615" }
        return name
    }

    /// `faults[2].rate: detail`, or the detail alone at the top level.
    static func located(_ path: [any CodingKey], _ detail: String) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? detail : "\(text): \(detail)"
    }
}

/// The part of a scenario `POST /squall/scenario` and `squall proxy --scenario` read: `faults` (required) and
/// `seed` (optional).
public struct ScenarioFaults: Decodable, Sendable {
    public var faults: [FaultRule]
    public var seed: UInt64?

    /// Reads a scenario document; the error names the JSON path and the problem.
    public static func parse(_ bytes: [UInt8]) throws(ControlAPIError) -> ScenarioFaults {
        try NativeInput.scenario(bytes)
    }

    private enum CodingKeys: String, CodingKey {
        case faults, seed
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.faults) else {
            throw FaultError(.missingKey, path: "faults", "missing; expected an array of faults")
        }
        faults = try container.decode([FaultRule].self, forKey: .faults)
        seed = try container.decodeIfPresent(UInt64.self, forKey: .seed)
    }
}
