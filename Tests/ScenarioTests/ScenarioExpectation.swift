import Scenario

/// `Scenario.Expectation` under a name Swift Testing's own `Expectation` does not hide.
typealias ScenarioExpectation = Expectation
