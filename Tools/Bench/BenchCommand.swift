import Glibc

/// One `squall-bench` subcommand. To add a benchmark, write a type in its own file and list it in
/// `BenchMain.commands`. Results are one machine-readable line: `NAME key=value …` (see `Throughput`).
protocol BenchCommand {
    /// The subcommand, e.g. `parse-heads`.
    static var name: String { get }
    /// Its options, e.g. `--bytes N [--buffer-size N]`.
    static var usage: String { get }
    /// What it measures, one line.
    static var summary: String { get }

    static func run(_ options: BenchOptions) throws
}

/// Dispatches `squall-bench SUBCOMMAND [--option value …]`.
enum BenchMain {
    static var commands: [any BenchCommand.Type] {
        [
            MintLeafCommand.self,
            ParseHeadsBench.self,
            UploadBench.self,
            UploadsBench.self,
            JobsBench.self,
            TransferBench.self,
            ProxyCommand.self,
            ProxyResponderCommand.self,
            HTTPSSinkCommand.self,
            ProxyFeedCommand.self,
            ProxyLatencyBench.self,
            ProxyRateBench.self,
            ProxyHoldBench.self,
            ProxyUploadBench.self,
            IdleLoadBench.self,
            AnnounceBench.self,
        ]
    }

    /// Runs the subcommand and returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first, !["help", "--help", "-h"].contains(name) else {
            emit(help)
            return arguments.isEmpty ? 2 : 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            report("unknown subcommand '\(name)'\n\(help)")
            return 2
        }
        do {
            let options = try BenchOptions(parsing: arguments.dropFirst())
            if options.wantsHelp {
                emit("usage: squall-bench \(command.name) \(command.usage)\n  \(command.summary)")
                return 0
            }
            try command.run(options)
            return 0
        } catch {
            report("squall-bench \(name): \(error)")
            return 1
        }
    }

    static var help: String {
        let lines = commands.map { "  \($0.name) \($0.usage)\n      \($0.summary)" }
        return "usage: squall-bench SUBCOMMAND [options]   (sizes take KiB/MiB/GiB; mbps = 10^6 bytes/s)\n"
            + lines.joined(separator: "\n")
    }

    /// Writes a result line to stdout at once (unbuffered, so a script sees `listening=` lines immediately).
    static func emit(_ line: String) {
        write(line, to: 1)
    }

    /// Writes a line to stderr.
    static func report(_ line: String) {
        write(line, to: 2)
    }

    private static func write(_ line: String, to fd: Int32) {
        var text = line + "\n"
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

/// A failure the user can fix (bad option, short transfer).
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
