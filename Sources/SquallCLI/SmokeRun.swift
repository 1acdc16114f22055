import Harness

/// `squall run --smoke`: the built-in end-to-end smoke check — every layer of the foundation in one real
/// exchange on loopback (TLS 1.3 through a terminating relay to an upload endpoint).
enum SmokeRun {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let path = RunCommand.spec.path
        var configuration = SmokeCheck.Configuration()
        if let size = arguments["--size"] {
            configuration.bodySize = try ByteSizeOption.parse(size, option: "--size", command: path)
        }
        if let seed = arguments["--seed"] { configuration.seed = try RunOptions.seed(seed) }
        if let interop = arguments["--interop"] {
            guard let value = Int(interop), (3...8).contains(value) else {
                throw UsageError("--interop must be an interop version from 3 to 8, not '\(interop)'", command: path)
            }
            configuration.interopVersion = value
        }
        configuration.artifactsDirectory = arguments["--keep"]
        return report(SmokeCheck.run(configuration), console: context.console)
    }

    private static func report(_ report: SmokeReport, console: Console) -> Int32 {
        for step in report.steps {
            let mark = step.passed ? console.styled("✓", .green) : console.styled("✗", .red)
            console.print("  \(mark) \(step.name.padding(to: 8)) \(step.detail)")
        }
        let milliseconds = report.duration.milliseconds
        console.print("time: \(milliseconds / 1000).\(String(milliseconds % 1000 / 10).leftPadded(to: 2)) s")
        console.print("smoke: \(report.passedCount) passed, \(report.failedCount) failed")
        return report.passed ? 0 : 1
    }
}
