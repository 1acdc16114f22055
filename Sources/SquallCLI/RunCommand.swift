import Harness
import SquallNet

/// `squall run`: today the built-in smoke check; the scenario harness (issue 6) replaces it.
enum RunCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["run"],
        summary: "Run the built-in end-to-end smoke check (scenario files need the harness, not built yet).",
        usage: "[--size SIZE] [--seed N] [--interop N] [--keep DIR]",
        options: [
            .value(
                "--size", "SIZE", help: "Upload body size: bytes, or with a unit (512KiB, 8MiB, 1GB). Default 8MiB."),
            .value("--seed", "N", help: "Seed of the upload's content. Default 1."),
            .value("--interop", "N", help: "Upload-Draft-Interop-Version the client sends (3 to 8). Default 6."),
            .value("--keep", "DIR", help: "Keep the CA and the TLS key log in DIR instead of a removed temp folder."),
        ],
        maxPositionals: 1,
        discussion: """
            The smoke check uploads seeded content over TLS 1.3 through a TLS-terminating relay (a leaf minted
            by a fresh local CA for SNI localhost) to a plain HTTP/1.1 endpoint on 127.0.0.1, which answers
            104 Upload Resumption Supported and then 201 with Upload-Offset, Upload-Complete and Repr-Digest.
            It checks the handshake, both responses, the SHA-256 of what arrived, the relay's byte counts and
            the key log. Exit status 0 when every step passed, 1 otherwise.

            Running scenario files (squall run PATH) needs the scenario harness, which is not built yet.
            """
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        if let path = arguments.positionals.first {
            throw UsageError(
                "cannot run '\(path)': running scenario files needs the scenario harness, which is not built yet; "
                    + "'squall run' without a path runs the built-in smoke check",
                command: spec.path)
        }
        var configuration = SmokeCheck.Configuration()
        if let size = arguments["--size"] {
            configuration.bodySize = try ByteSizeOption.parse(size, option: "--size", command: spec.path)
        }
        if let seed = arguments["--seed"] {
            guard let value = UInt64(seed) else {
                throw UsageError("--seed must be a whole number from 0 to 2^64-1, not '\(seed)'", command: spec.path)
            }
            configuration.seed = value
        }
        if let interop = arguments["--interop"] {
            guard let value = Int(interop), (3...8).contains(value) else {
                throw UsageError(
                    "--interop must be an interop version from 3 to 8, not '\(interop)'", command: spec.path)
            }
            configuration.interopVersion = value
        }
        configuration.artifactsDirectory = arguments["--keep"]
        return report(SmokeCheck.run(configuration), console: context.console)
    }

    private static func report(_ report: SmokeReport, console: Console) -> Int32 {
        console.print("squall run: no scenario harness yet; running the built-in smoke check")
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
