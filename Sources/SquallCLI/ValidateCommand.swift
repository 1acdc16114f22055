import Harness
import Scenario

/// `squall validate PATH…`: checks scenario files without running them and reports every mistake in every file.
enum ValidateCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["validate"],
        summary: "Check scenario files (or folders of them) without running them.",
        usage: "PATH… [--max-asset-size SIZE] [--max-total-size SIZE] [--max-assets N] [--max-faults N] "
            + "[--max-events N] [--max-timeout DURATION]",
        options: ScenarioLimitOptions.options,
        maxPositionals: .max,
        discussion: """
            A folder stands for every *.json file in it and below it, except the schemas (schema.json and
            *.schema.json). Every mistake in every file is printed on stderr as `file: path: message` (unknown keys, wrong types, bad units, unknown fault,
            event or expectation names, scenario names used twice, a value over a limit with the flag that raises
            it), then `M errors in K files`; when there is none,
            `N scenarios valid` is printed on stdout. Exit status 0 when every file is valid, 1 otherwise, 2 for a
            usage mistake.
            """
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard !arguments.positionals.isEmpty else {
            throw UsageError("name at least one scenario file or folder", command: spec.path)
        }
        let limits = try ScenarioLimitOptions.parse(arguments, command: spec.path)
        let (scenarios, errors) = ScenarioFiles.loadCatalog(paths: arguments.positionals, limits: limits)
        let console = context.console
        guard !errors.isEmpty else {
            console.print(counted(scenarios.count, "scenario") + " valid")
            return 0
        }
        for error in errors {
            console.printError(error.description)
        }
        let files = Set(errors.map { $0.file ?? "" }).count
        console.printError("\(counted(errors.count, "error")) in \(counted(files, "file"))")
        return 1
    }

    private static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
