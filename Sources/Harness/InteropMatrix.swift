import ResumableUpload
import Scenario

/// `squall run --interop-matrix`: each scenario at every interop version it can apply to, so that a server author
/// reads in one table which versions break which behaviour.
///
/// A scenario applies at every version its server serves (`server.interop`, or the profile's against an outside
/// server), `final` included when listed, unless it is tied to one: a scenario that names its `client.interop`
/// keeps it (it proves that version), and one that sends plain uploads (`"none"`) has none. Each variant is the
/// scenario with `client.interop` set and its name suffixed `@version` (`reset-mid-creation@6`).
public enum InteropMatrix {
    /// The variants of `scenarios`, in order: each scenario's, oldest version first.
    public static func expand(_ scenarios: [Scenario], profile: ServerProfile? = nil) -> [Scenario] {
        scenarios.flatMap { scenario in
            versions(of: scenario, profile: profile).map { variant(scenario, at: $0) }
        }
    }

    /// The versions `scenario` runs at in the matrix.
    public static func versions(of scenario: Scenario, profile: ServerProfile? = nil) -> [Int] {
        if scenario.client.interopGiven { return scenario.client.interop.map { [$0] } ?? [] }
        guard scenario.server.resumable else { return [] }
        let served = profile.map(\.interop).flatMap { $0.isEmpty ? nil : $0 } ?? scenario.server.interop
        return served.sorted()
    }

    /// `scenario` with its client speaking `version`, named `name@version`.
    static func variant(_ scenario: Scenario, at version: Int) -> Scenario {
        var variant = scenario
        variant.name = scenario.name + "@" + InteropVersion.word(version)
        variant.client.interop = version
        variant.client.interopGiven = true
        return variant
    }
}
