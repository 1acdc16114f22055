import SquallCore
import SquallNet

/// The limit flags of a listener, `--head-timeout D`, `--idle-timeout D` and `--max-connections N` (with a prefix
/// for a second listener: `--api-head-timeout`), read over the listener's defaults.
enum ListenerLimitsOption {
    /// The three options, for a `CommandSpec`, with the defaults they override; `listener` names the listener at the
    /// start of each help line (`"Control API"`) when a command has more than one.
    static func specs(prefix: String = "--", listener: String? = nil, defaults: ListenerLimits) -> [OptionSpec] {
        func help(_ text: String) -> String {
            guard let listener else { return text.prefix(1).uppercased() + text.dropFirst() }
            return "\(listener): \(text)"
        }
        let head = text(defaults.headTimeout)
        let idle = text(defaults.idleTimeout)
        let count = defaults.maximumConnections
        return [
            .value(
                prefix + "head-timeout", "DURATION",
                help: help("time from accept (TLS included) to a whole first head, else 408. Default \(head).")),
            .value(
                prefix + "idle-timeout", "DURATION", help: help("time allowed idle between requests. Default \(idle).")),
            .value(
                prefix + "max-connections", "N", help: help("connections at once; one more gets 503. Default \(count).")
            ),
        ]
    }

    /// `defaults` with what the flags named `prefix…` say; a bad value is a `UsageError` naming the flag.
    static func parse(
        _ arguments: ParsedArguments, prefix: String = "--", defaults: ListenerLimits, command: [String]
    ) throws(UsageError) -> ListenerLimits {
        var limits = defaults
        if let value = arguments[prefix + "head-timeout"] {
            limits.headTimeout = try positive(value, option: prefix + "head-timeout", command: command)
        }
        if let value = arguments[prefix + "idle-timeout"] {
            limits.idleTimeout = try positive(value, option: prefix + "idle-timeout", command: command)
        }
        let option = prefix + "max-connections"
        if let value = arguments[option] {
            guard let count = Int(value), count > 0 else {
                throw UsageError(
                    "\(option) must be a whole number of connections of 1 or more such as 1024, not '\(value)'",
                    command: command)
            }
            limits.maximumConnections = count
        }
        return limits
    }

    private static func positive(_ text: String, option: String, command: [String]) throws(UsageError) -> Duration {
        let duration = try DurationOption.parse(text, option: option, command: command)
        guard duration > .zero else {
            throw UsageError("\(option) must be more than 0 such as 10s, not '\(text)'", command: command)
        }
        return duration
    }

    private static func text(_ duration: Duration) -> String {
        DurationText.format(duration) ?? "\(duration)"
    }
}
