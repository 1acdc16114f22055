import FaultEngine
import Scenario
import Testing

@testable import Harness

/// `squall run --http-matrix`: each scenario over HTTP/1.1 and HTTP/2, and a scenario of HTTP/2 faults at HTTP/1.1
/// skipped with its reason rather than run to fail.
struct HTTPMatrixTests {
    @Test func aScenarioRunsAsItIsAndAtH2() {
        let variants = HTTPMatrix.expand([CatalogRunTests.scenario("cut")])
        #expect(variants.map(\.name) == ["cut", "cut@h2"])
        #expect(variants.map(\.client.http) == ["http/1.1", "h2"])
        #expect(variants.last?.client.httpGiven == true)
    }

    @Test func anH2ScenarioRunsAsItIsAndItsHTTP1VariantIsSkippedWithWhy() throws {
        var scenario = CatalogRunTests.scenario("drain")
        scenario.client.http = "h2"
        scenario.client.httpGiven = true
        scenario.faults = [try FaultRule.parse(#"{"name": "away", "action": "goaway"}"#)]
        let variants = HTTPMatrix.expand([scenario])
        #expect(variants.map(\.name) == ["drain", "drain@http1.1"])
        #expect(ScenarioNeeds.unmetProtocol(variants[0]).isEmpty)
        let unmet = ScenarioNeeds.unmetProtocol(variants[1])
        #expect(unmet == ["a client speaking HTTP/2 (client.http h2): away (goaway) act on HTTP/2 streams"])
        let result = ScenarioRunner.run(variants[1])
        #expect(result.skipReason == "needs " + unmet[0], "\(result)")
        #expect(result.verdicts.isEmpty)
    }

    /// Negative control of the skip: the same scenario without its HTTP/2 fault needs nothing of the protocol.
    @Test func aScenarioWithoutHTTP2FaultsNeedsNoProtocol() {
        var scenario = CatalogRunTests.scenario("plain")
        scenario.client.http = "http/1.1"
        #expect(ScenarioNeeds.unmetProtocol(scenario).isEmpty)
    }
}
