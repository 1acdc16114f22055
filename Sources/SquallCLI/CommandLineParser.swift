/// One option a subcommand accepts: a flag (`--verbose`) or an option with a value (`--dir DIR`).
public struct OptionSpec: Sendable {
    public var name: String
    public var valueName: String?
    public var help: String

    /// A flag: present or absent, takes no value.
    public static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help)
    }

    /// An option that takes one value, written `--name VALUE` or `--name=VALUE`.
    public static func value(_ name: String, _ valueName: String, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help)
    }
}

/// What a subcommand accepts and how `--help` describes it.
public struct CommandSpec: Sendable {
    /// The words that select the command, e.g. `["ca", "init"]`.
    public var path: [String]
    public var summary: String
    /// The argument part of the usage line, e.g. `[--dir DIR]`.
    public var usage: String
    public var options: [OptionSpec]
    /// The most positional arguments the command takes (0 when none).
    public var maxPositionals: Int
    public var discussion: String
    /// Whether SIGINT and SIGTERM stop the command the shared way (`ProcessStop`): a long-running command's work
    /// returns early, what it made is removed, one line on stderr says so, the exit status is 130 or 143, and a
    /// second signal exits at once.
    public var stopsOnSignal: Bool

    public init(
        path: [String], summary: String, usage: String = "", options: [OptionSpec] = [],
        maxPositionals: Int = 0, discussion: String = "", stopsOnSignal: Bool = false
    ) {
        self.path = path
        self.summary = summary
        self.usage = usage
        self.options = options
        self.maxPositionals = maxPositionals
        self.discussion = discussion
        self.stopsOnSignal = stopsOnSignal
    }

    /// The paragraph every command that `stopsOnSignal` adds to its help.
    static let stopHelp = """
        SIGINT (Ctrl-C) or SIGTERM stops it: what it started is stopped, what it made for itself is removed (what
        you named is kept), one line on stderr says what was stopped, removed and kept, and the exit status is
        130 (SIGINT) or 143 (SIGTERM). A second signal exits at once, killing its child processes and naming the
        temporary folders it leaves.
        """

    /// The `--help` text.
    public var helpText: String {
        var text = "\(summary)\n\nUsage: squall \(path.joined(separator: " "))"
        if !usage.isEmpty { text += " \(usage)" }
        text += "\n"
        if !options.isEmpty {
            text += "\nOptions:\n"
            let rows =
                options.map { option in
                    (option.valueName.map { "\(option.name) \($0)" } ?? option.name, option.help)
                } + [("-h, --help", "Show this help.")]
            let width = rows.map(\.0.count).max() ?? 0
            for (left, help) in rows {
                text += "  \(left.padding(to: width))  \(help)\n"
            }
        }
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        if stopsOnSignal { text += "\n\(Self.stopHelp)\n" }
        return text
    }
}

/// Arguments after parsing: option values, flags present, and positional words, in order.
public struct ParsedArguments: Sendable, Equatable {
    /// Each option's last value.
    public var values: [String: String] = [:]
    /// Every value of each option, in order (for options that may be given more than once).
    public var allValues: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []
    public var wantsHelp = false

    public subscript(option: String) -> String? { values[option] }

    /// Every value given for `option`, in order.
    public func all(_ option: String) -> [String] { allValues[option] ?? [] }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }
}

/// A failure of a command that is not a usage mistake, in words (exit status 1): a file that cannot be read, a
/// listener that cannot start.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A command-line mistake; the CLI prints it with the command's usage and exits with status 2.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    /// The command the mistake was made in, for pointing at its `--help`.
    public var command: [String]

    public init(_ message: String, command: [String]) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}

/// Parses the arguments of one subcommand against its `CommandSpec`.
///
/// Accepts `--name VALUE`, `--name=VALUE`, flags, `--` (everything after is positional) and `-h`/`--help`.
public enum CommandLineParser {
    public static func parse(_ arguments: [String], for spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                parsed.wantsHelp = true
                continue
            }
            let (name, inlineValue) = split(argument)
            guard let option = spec.options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '\(name)'\(suggestion(for: name, in: spec))", command: spec.path)
            }
            guard let valueName = option.valueName else {
                if inlineValue != nil {
                    throw UsageError("option '\(name)' takes no value", command: spec.path)
                }
                parsed.flags.insert(name)
                continue
            }
            if let inlineValue {
                parsed.values[name] = inlineValue
                parsed.allValues[name, default: []].append(inlineValue)
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                parsed.values[name] = arguments[index]
                parsed.allValues[name, default: []].append(arguments[index])
                index += 1
            } else {
                throw UsageError("option '\(name)' needs a value (\(name) \(valueName))", command: spec.path)
            }
        }
        if parsed.positionals.count > spec.maxPositionals && !parsed.wantsHelp {
            let extra = parsed.positionals[spec.maxPositionals]
            throw UsageError("unexpected argument '\(extra)'", command: spec.path)
        }
        return parsed
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func suggestion(for name: String, in spec: CommandSpec) -> String {
        let close = spec.options.map(\.name).filter { editDistance($0, name) <= 2 }
        return close.isEmpty ? "" : " (did you mean '\(close[0])'?)"
    }

    /// Levenshtein distance, for "did you mean" hints.
    static func editDistance(_ left: String, _ right: String) -> Int {
        let a = Array(left)
        let b = Array(right)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
