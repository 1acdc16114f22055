import Scenario

/// The flags of `squall run` and `squall validate` that raise the scenario loader's limits (`ScenarioLimits`):
/// sizes and durations in the one grammar of each, counts as whole numbers.
enum ScenarioLimitOptions {
    static var options: [OptionSpec] {
        let defaults = ScenarioLimits()
        return ScenarioLimits.Limit.allCases.map { limit in
            switch limit {
            case .assetSize:
                .value(limit.flag, "SIZE", help: "Largest asset a scenario may have. Default 1GiB.")
            case .totalSize:
                .value(limit.flag, "SIZE", help: "Most asset bytes per scenario (added ones too). Default 2GiB.")
            case .assetCount:
                .value(limit.flag, "N", help: "Most asset files per scenario. Default \(defaults.assetCount).")
            case .faults:
                .value(limit.flag, "N", help: "Most faults per scenario. Default \(defaults.faults).")
            case .events:
                .value(limit.flag, "N", help: "Most events per scenario. Default \(defaults.events).")
            case .timeout:
                .value(limit.flag, "DURATION", help: "Longest scenario timeout. Default 10m.")
            }
        }
    }

    /// The limits the flags set (the defaults for the others).
    static func parse(_ arguments: ParsedArguments, command: [String]) throws(UsageError) -> ScenarioLimits {
        var limits = ScenarioLimits()
        for limit in ScenarioLimits.Limit.allCases {
            guard let text = arguments[limit.flag] else { continue }
            switch limit {
            case .assetSize:
                limits.assetSize = Int64(try ByteSizeOption.parse(text, option: limit.flag, command: command))
            case .totalSize:
                limits.totalSize = Int64(try ByteSizeOption.parse(text, option: limit.flag, command: command))
            case .assetCount: limits.assetCount = try count(text, limit.flag, command)
            case .faults: limits.faults = try count(text, limit.flag, command)
            case .events: limits.events = try count(text, limit.flag, command)
            case .timeout: limits.timeout = try DurationOption.parse(text, option: limit.flag, command: command)
            }
        }
        return limits
    }

    private static func count(_ text: String, _ flag: String, _ command: [String]) throws(UsageError) -> Int {
        guard let value = Int(text), value >= 0 else {
            throw UsageError("\(flag) must be a whole number of 0 or more, not '\(text)'", command: command)
        }
        return value
    }
}
