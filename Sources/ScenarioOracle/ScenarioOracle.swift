import ResumableUpload
import Scenario
import SquallCore

/// Judges a run against its scenario (issue 6 "Oracle"): one `Verdict` per expectation, in the scenario's order,
/// from the client's ledger, the proxy's transcript and the server's state; then a failed `fault.<name>` verdict
/// per declared fault that never fired, then a failed `event.<index>.<name>` verdict per
/// event that never played (with why: the client settled first, the upload never got that far), then a failed
/// `timeout` verdict when the run was stopped at its timeout. With an app's extension as the client's policy, the
/// `extension.*` verdicts of `ExtensionConductCheck` come after the expectations.
///
/// ```
/// Scenario.expect ──┐
///                   ├─▶ ScenarioOracle.judge ──▶ [Verdict]  (key, passed/failed/skipped, expected, observed,
/// RunObservation ───┘                                       evidence: jobs, requests, offsets, faults)
/// ```
///
/// Pure: no clock, no I/O. Expectations that need the reference server's state (`server-objects-intact`,
/// `server-resource-ids-recorded`) are `skipped`, never passed, when `serverUploads` is nil (`--upstream`).
public enum ScenarioOracle {
    /// The verdicts of `observation` against `scenario`'s expectations, declared faults and timeout.
    public static func judge(_ scenario: Scenario, _ observation: RunObservation) -> [Verdict] {
        let context = OracleContext(scenario: scenario, observation: observation)
        let conduct = observation.extensionConduct.map { ExtensionConductCheck.verdicts(context, conduct: $0) }
        return scenario.expect.map { context.verdict(for: $0) } + (conduct ?? []) + runVerdicts(scenario, observation)
    }

    /// The verdicts every run gets besides its expectations: faults that never fired, and the timeout.
    private static func runVerdicts(_ scenario: Scenario, _ observation: RunObservation) -> [Verdict] {
        var verdicts = observation.neverFired.map { name in
            Verdict(
                key: "fault.\(name)", status: .failed, expected: "fired at least once", observed: "never fired",
                evidence: [
                    "declared fault \(name) never fired" + (observation.neverFiredReasons[name].map { ": " + $0 } ?? "")
                ])
        }
        for record in observation.events where !record.played {
            let reason = record.notPlayed ?? "it was still pending when the run ended"
            verdicts.append(
                Verdict(
                    key: record.key, status: .failed, expected: "played (\(record.trigger))", observed: "never played",
                    evidence: ["event \(record.event) \(record.trigger) never played: \(reason)"]))
        }
        let elsewhere = requestsElsewhere(observation)
        if !elsewhere.isEmpty {
            verdicts.append(
                Verdict(
                    key: "requests-through-proxy", status: .failed,
                    expected: "every request through the proxy (\(observation.proxyOrigin ?? "?"))",
                    observed: "\(elsewhere.count) upload resources elsewhere", evidence: Evidence.capped(elsewhere)))
        }
        if observation.timedOut {
            verdicts.append(
                Verdict(
                    key: "timeout", status: .failed, expected: "finished within \(seconds(scenario.timeout))",
                    observed: "stopped at the timeout after \(seconds(observation.wallTime))",
                    evidence: ["the run did not complete within the scenario's timeout"]))
        }
        return verdicts
    }

    /// The jobs whose upload resource (the `Location` the client resumes at) is an absolute URL off the proxy: its
    /// HEADs and PATCHes bypassed the faults and the transcript.
    static func requestsElsewhere(_ observation: RunObservation) -> [String] {
        guard let proxy = observation.proxyOrigin.flatMap(UploadRequest.origin(of:)) else { return [] }
        return observation.ledger.all.compactMap { job in
            guard let resource = job.uploadResource, let origin = UploadRequest.origin(of: resource), origin != proxy
            else { return nil }
            return "\(job.localID) (\(job.assetID)): resumed at \(resource), not through the proxy"
        }
    }

    /// `d` in seconds with millisecond precision: `1.234s`.
    static func seconds(_ duration: Duration) -> String {
        DurationText.seconds(duration, digits: 3) + "s"
    }
}
