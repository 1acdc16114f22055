import SquallCore

/// The checks of `ScenarioLimits` on a scenario read without mistakes: each error names the JSON path (the asset
/// entry or event that passes a limit, the first fault or event beyond one, the timeout), the limit and its flag.
extension ScenarioLoader {
    /// Reports each limit `scenario` passes (its timeout, assets and events; the rest may be empty); `faultCount`
    /// and `eventCount` are the entries in the file.
    static func checkLimits(
        _ scenario: Scenario, faultCount: Int, eventCount: Int, limits: ScenarioLimits,
        into diagnostics: inout Diagnostics
    ) {
        if scenario.timeout > limits.timeout {
            let given = DurationText.format(scenario.timeout) ?? "\(scenario.timeout)"
            let limit = DurationText.format(limits.timeout) ?? "\(limits.timeout)"
            diagnostics.report(
                .overLimit, path: "timeout", "the timeout \(given) is over the limit of \(limit)" + raise(.timeout))
        }
        for (what, count, limit, flag) in [
            ("faults", faultCount, limits.faults, ScenarioLimits.Limit.faults),
            ("events", eventCount, limits.events, .events),
        ] where count > limit {
            diagnostics.report(
                .overLimit, path: "\(what)[\(limit)]",
                "the scenario has \(count) \(what), over the limit of \(limit)" + raise(flag))
        }
        checkAssets(scenario, limits: limits, into: &diagnostics)
    }

    /// Each asset over the size limit, and the entry (asset or `add-assets` event, in file order) with which the
    /// scenario's asset bytes, then its asset files, pass their limits.
    private static func checkAssets(_ scenario: Scenario, limits: ScenarioLimits, into diagnostics: inout Diagnostics) {
        var entries = scenario.assets.enumerated().map { ("assets[\($0.offset)]", $0.element) }
        for (index, event) in scenario.events.enumerated() {
            if case .addAssets(let spec) = event.action { entries.append(("events[\(index)]", spec)) }
        }
        var bytes: Int64 = 0
        var files = 0
        var (totalReported, countReported) = (false, false)
        for (path, spec) in entries {
            if spec.size > limits.assetSize {
                diagnostics.report(
                    .overLimit, path: path + ".size",
                    "the asset is \(ByteSize.description(spec.size)), over the limit of "
                        + "\(ByteSize.description(limits.assetSize)) per asset" + raise(.assetSize))
            }
            bytes = bytes.addingSize(spec.bytes)
            files += spec.count
            if !totalReported, bytes > limits.totalSize {
                totalReported = true
                diagnostics.report(
                    .overLimit, path: path,
                    "with this entry the scenario's assets come to \(ByteSize.description(bytes)), over the "
                        + "limit of \(ByteSize.description(limits.totalSize)) per scenario (assets and add-assets "
                        + "events together)" + raise(.totalSize))
            }
            if !countReported, files > limits.assetCount {
                countReported = true
                diagnostics.report(
                    .overLimit, path: path,
                    "with this entry the scenario has \(files) asset files, over the limit of \(limits.assetCount) "
                        + "per scenario (assets and add-assets events together)" + raise(.assetCount))
            }
        }
    }

    private static func raise(_ limit: ScenarioLimits.Limit) -> String {
        "; raise it with \(limit.flag)"
    }
}
