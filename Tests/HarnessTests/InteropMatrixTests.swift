import FaultEngine
import ResumableUpload
import Scenario
import ScenarioReports
import Testing

@testable import Harness

/// `squall run --interop-matrix`: which versions a scenario runs at, how its variants look, and the table.
struct InteropMatrixTests {
    static let final = InteropVersion.finalRawValue

    @Test func anUntiedScenarioRunsAtEveryServedVersionAndFinal() {
        let scenario = CatalogRunTests.scenario("cut")
        let variants = InteropMatrix.expand([scenario])
        #expect(variants.map(\.name) == (3...10).map { "cut@\($0)" } + ["cut@final"])
        #expect(variants.allSatisfy { $0.client.interopGiven })
        #expect(
            variants.last?.client.interop == Self.final && variants.last?.server.interop.contains(Self.final) == true)
        #expect(variants.first?.server.interop.contains(Self.final) == false, "only the final variant serves final")
    }

    @Test func aTiedScenarioKeepsItsVersionAndItsServer() {
        var tied = CatalogRunTests.scenario("tied")
        tied.client.interop = 8
        tied.client.interopGiven = true
        tied.server.interop = [3, 5]
        let variants = InteropMatrix.expand([tied])
        #expect(variants.map(\.name) == ["tied@8"])
        #expect(variants.first?.server.interop == [3, 5] && variants.first?.client.interop == 8)
    }

    @Test func plainScenariosRunOnceAndVersionFaultsSkipFinal() throws {
        var plain = CatalogRunTests.scenario("plain")
        plain.client.interop = nil
        plain.client.interopGiven = true
        #expect(InteropMatrix.expand([plain]).map(\.name) == ["plain"])

        var stripping = CatalogRunTests.scenario("strip")
        stripping.faults = [
            try FaultRule(
                name: "s", action: .rewriteHeader(name: "Upload-Draft-Interop-Version", value: nil),
                direction: .upstream)
        ]
        #expect(InteropMatrix.versions(of: stripping) == Array(3...10))

        var profile = ServerProfile()
        profile.interop = [6, 8]
        #expect(InteropMatrix.versions(of: CatalogRunTests.scenario("outside"), profile: profile) == [6, 8])
    }

    @Test func theTableHasARowPerScenarioAndAColumnPerVersion() {
        let results = [
            CatalogRunTests.result("cut@3"), CatalogRunTests.result("cut@10", passed: false),
            CatalogRunTests.result("cut@final"), CatalogRunTests.result("tied@8"), CatalogRunTests.result("plain"),
        ]
        let lines = InteropMatrixTable.lines(results)
        #expect(
            lines == [
                "scenario  3      8      10     final",
                "cut       PASS   ·      FAIL   PASS",
                "tied      ·      PASS   ·      ·",
            ])
    }
}
