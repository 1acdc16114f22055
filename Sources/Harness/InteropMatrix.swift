import FaultEngine
import ResumableUpload
import Scenario

/// `squall run --interop-matrix`: each scenario at every interop version it can apply to, so that a server author
/// reads in one table which versions break which behaviour.
///
/// A scenario applies at every version its server serves (`server.interop`, or the profile's against an outside
/// server), and at `final` where the reference server serves the newest draft (the variant's server then serves
/// `final` too; against an outside server only when its profile lists `final`), unless it is tied to a version: a
/// scenario that names its `client.interop` keeps it (it proves that version) and runs once, named `@version`.
/// A scenario of plain uploads (`"none"`, or a server without resumable uploads) runs once, as it is. Each variant
/// is the scenario with `client.interop` set and its name suffixed `@version` (`reset-mid-creation@6`).
public enum InteropMatrix {
    /// The variants of `scenarios`, in order: each scenario's, oldest version first.
    public static func expand(_ scenarios: [Scenario], profile: ServerProfile? = nil) -> [Scenario] {
        scenarios.flatMap { scenario in
            let versions = versions(of: scenario, profile: profile)
            return versions.isEmpty ? [scenario] : versions.map { variant(scenario, at: $0) }
        }
    }

    /// The versions `scenario` runs at in the matrix; empty for a scenario of plain uploads.
    public static func versions(of scenario: Scenario, profile: ServerProfile? = nil) -> [Int] {
        if scenario.client.interopGiven { return scenario.client.interop.map { [$0] } ?? [] }
        guard scenario.server.resumable else { return [] }
        if let profile, !profile.interop.isEmpty { return profile.interop.sorted() }
        var served = Set(scenario.server.interop)
        if profile == nil, served.contains(InteropVersion.implemented.upperBound), !namesTheVersionField(scenario) {
            served.insert(InteropVersion.finalRawValue)
        }
        return served.sorted()
    }

    /// Whether a fault of `scenario` is about `Upload-Draft-Interop-Version` (matches it, or rewrites it): at
    /// `final`, which carries none, it has nothing to act on.
    static func namesTheVersionField(_ scenario: Scenario) -> Bool {
        let field = InteropVersion.fieldName.lowercased()
        return scenario.faults.contains { rule in
            if rule.match.interop != nil || rule.match.header?.name.lowercased() == field { return true }
            if case .rewriteHeader(let name, _) = rule.action { return name.lowercased() == field }
            return false
        }
    }

    /// `scenario` with its client speaking `version`, named `name@version`; a scenario tied to its version is left
    /// as it is (its server may not serve it on purpose), and the reference server of a `final` variant serves
    /// `final`.
    static func variant(_ scenario: Scenario, at version: Int) -> Scenario {
        var variant = scenario
        variant.name = scenario.name + "@" + InteropVersion.word(version)
        guard !scenario.client.interopGiven else { return variant }
        variant.client.interop = version
        variant.client.interopGiven = true
        if version == InteropVersion.finalRawValue { variant.server.interop.append(version) }
        return variant
    }
}
