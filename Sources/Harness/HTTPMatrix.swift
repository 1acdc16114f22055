import Scenario

/// `squall run --http-matrix`: each scenario over HTTP/1.1 and over HTTP/2, as phones upload once a server offers
/// h2, so that a run shows which behaviour changes with the protocol.
///
/// Every scenario that does not name its `client.http` runs as it is (HTTP/1.1) and as `name@h2`: its client speaks
/// h2 and the proxy offers it. A scenario that names it runs as it is, and its variant at the other protocol is
/// listed too (`@http1.1`): run when it can apply, else skipped with its reason (a scenario of HTTP/2 faults:
/// `ScenarioNeeds.unmetProtocol`).
public enum HTTPMatrix {
    /// The variants of `scenarios`, in order: each scenario, then its variant at the other protocol.
    public static func expand(_ scenarios: [Scenario]) -> [Scenario] {
        scenarios.flatMap { scenario -> [Scenario] in
            let other = scenario.client.http == "h2" ? "http/1.1" : "h2"
            var variant = scenario
            // A name is a folder's too: no slash in it.
            variant.name = scenario.name + (other == "h2" ? "@h2" : "@http1.1")
            variant.client.http = other
            variant.client.httpGiven = true
            return [scenario, variant]
        }
    }
}
