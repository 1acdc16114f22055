import Scenario

/// Placeholder until the oracle lands: judges nothing.
public enum ScenarioOracle {
    public static func judge(_ scenario: Scenario, _ observation: RunObservation) -> [Verdict] {
        observation.neverFired.map { Verdict(key: "fault.\($0)", status: .failed, expected: "fired", observed: "never") }
    }
}
