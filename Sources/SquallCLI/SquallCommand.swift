import Foundation
import SquallNet
import SquallPhotos

/// A subcommand: its spec (options, help) and what it does with parsed arguments.
protocol Subcommand: Sendable {
    static var spec: CommandSpec { get }
    /// Runs the command; returns the exit status. Thrown errors are printed to stderr with status 1.
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32
}

/// What a command runs with: where its output goes, the environment it reads defaults from, and its stop.
public struct CommandContext: Sendable {
    public var console: Console
    public var environment: [String: String]
    /// Whether a command that `stopsOnSignal` takes SIGINT and SIGTERM (the process's own run; tests that run
    /// commands in process leave the test runner's signals alone).
    public var watchesSignals: Bool
    /// The running command's stop (`ProcessStop`): set by `SquallCommand.run` for each command.
    var stop = ProcessStop(command: "squall")
    /// The app's extension the client runs in place of its built-in policy (`Squall.main(extension:urlBase:)`).
    public var clientExtension: HostedExtension?

    public init(
        console: Console, environment: [String: String], watchesSignals: Bool = false,
        clientExtension: HostedExtension? = nil
    ) {
        self.console = console
        self.environment = environment
        self.watchesSignals = watchesSignals
        self.clientExtension = clientExtension
    }
}

/// The `squall` command for an app's own extension. An executable of the app's package whose `main.swift` is
///
///     import SquallCLI
///     Squall.main(extension: BackgroundUploadExtension.self, urlBase: "https://api.example.com")
///
/// is a whole `squall` (run, upload, validate, …) whose client runs that extension instead of the built-in
/// policy, in every scenario and in the child processes of kill and relaunch scenarios (the same executable, run
/// again). `urlBase` is the extension's `BackgroundUploadURLBase`: its destinations under it go to the server
/// under test.
public enum Squall {
    public static func main(
        extension type: any PHBackgroundResourceUploadJobExtension.Type, urlBase: String
    ) -> Never {
        exit(
            SquallCommand.main(
                arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                clientExtension: HostedExtension(type, urlBase: urlBase)))
    }
}

/// The `squall` command line: maps arguments to configuration values and calls the library.
///
/// Exit status: 0 success, 1 failure, 2 a usage mistake (unknown command or flag, missing value).
public enum SquallCommand {
    static let subcommands: [any Subcommand.Type] = [
        RunCommand.self,
        ServerCommand.self,
        UploadCommand.self,
        ProxyCommand.self,
        FaultAddCommand.self,
        FaultListCommand.self,
        FaultRemoveCommand.self,
        FaultFireCommand.self,
        FaultConnectionsCommand.self,
        CAInitCommand.self,
        CAShowCommand.self,
        ValidateCommand.self,
        TranscriptToHARCommand.self,
        CheckServerCommand.self,
        ExploreCommand.self,
        VersionCommand.self,
    ]

    /// Runs the command with the process's stdout and stderr and returns the exit status.
    public static func main(
        arguments: [String], environment: [String: String], clientExtension: HostedExtension? = nil
    ) -> Int32 {
        ProcessSetup.ignoreBrokenPipe()
        let context = CommandContext(
            console: .standard(environment: environment), environment: environment, watchesSignals: true,
            clientExtension: clientExtension)
        return run(arguments: arguments, context: context)
    }

    /// Runs the command in `context`; tests call this in process with a capturing console.
    public static func run(arguments: [String], context: CommandContext) -> Int32 {
        let console = context.console
        guard let first = arguments.first else {
            console.printError(overview)
            return 2
        }
        if first == "-h" || first == "--help" || first == "help" {
            return help(for: Array(arguments.dropFirst()), console: console)
        }
        guard let (command, rest) = match(arguments) else {
            // `squall fault --help`, `squall ca -h`: a command group's help lists its commands.
            if arguments.count == 2, ["-h", "--help"].contains(arguments[1]), let text = groupHelp(arguments[0]) {
                console.print(text)
                return 0
            }
            return usageFailure(unknownCommandMessage(arguments), console: console)
        }
        do {
            let parsed = try CommandLineParser.parse(rest, for: command.spec)
            if parsed.wantsHelp {
                console.print(command.spec.helpText)
                return 0
            }
            return try runStoppable(command, parsed, context: context)
        } catch let error as UsageError {
            let hint = "Run 'squall \(error.command.joined(separator: " ")) --help' for usage."
            return usageFailure("\(error.message)\n\(hint)", command: error.command, console: console)
        } catch {
            console.printError("squall \(command.spec.path.joined(separator: " ")): error: \(error)")
            return 1
        }
    }

    /// Runs `command` with a stop of its own: for a command that `stopsOnSignal`, SIGINT and SIGTERM are taken while
    /// it runs, and once it returned (or threw) after a stop, the stop's line goes to stderr and the exit status is
    /// the signal's (130, 143).
    private static func runStoppable(
        _ command: any Subcommand.Type, _ arguments: ParsedArguments, context: CommandContext
    ) throws -> Int32 {
        var context = context
        let name = "squall " + command.spec.path.joined(separator: " ")
        context.stop = ProcessStop(command: name)
        let watcher = command.spec.stopsOnSignal && context.watchesSignals ? StopSignalWatcher(context.stop) : nil
        let status: Int32
        do {
            status = try command.run(arguments, context: context)
            watcher?.finish()
        } catch {
            watcher?.finish()
            // An error after a stop (often caused by it) is printed, then the stop's line and status follow.
            guard context.stop.isRequested, !(error is UsageError) else { throw error }
            context.console.printError("\(name): error: \(error)")
            status = 1
        }
        guard let signal = context.stop.signal else { return status }
        context.console.printError(context.stop.summary.line(command: name))
        return signal.exitStatus
    }

    /// The top-level help: every command with its summary.
    static var overview: String {
        let width = subcommands.map { $0.spec.path.joined(separator: " ").count }.max() ?? 0
        let rows = subcommands.map { command in
            "  \(command.spec.path.joined(separator: " ").padding(to: width))  \(command.spec.summary)"
        }
        return """
            squall: a network-fault chaos proxy and test harness for resumable uploads.

            Usage: squall <command> [options]

            Commands:
            \(rows.joined(separator: "\n"))

            Run 'squall <command> --help' for a command's options.
            """
    }

    private static func help(for words: [String], console: Console) -> Int32 {
        if words.isEmpty {
            console.print(overview)
            return 0
        }
        if words.count == 1, let text = groupHelp(words[0]) {
            console.print(text)
            return 0
        }
        guard let (command, _) = match(words) else {
            return usageFailure(unknownCommandMessage(words), console: console)
        }
        console.print(command.spec.helpText)
        return 0
    }

    /// The command whose path is the longest prefix of `arguments`, and the arguments after it.
    private static func match(_ arguments: [String]) -> (any Subcommand.Type, [String])? {
        let candidates = subcommands.filter { Array(arguments.prefix($0.spec.path.count)) == $0.spec.path }
        guard let best = candidates.max(by: { $0.spec.path.count < $1.spec.path.count }) else { return nil }
        return (best, Array(arguments.dropFirst(best.spec.path.count)))
    }

    /// The help of a command group (`fault`, `ca`): each of its commands with its summary; nil for a name that is
    /// not a group.
    static func groupHelp(_ name: String) -> String? {
        let group = subcommands.filter { $0.spec.path.count > 1 && $0.spec.path[0] == name }
        guard !group.isEmpty else { return nil }
        let width = group.map { $0.spec.path.joined(separator: " ").count }.max() ?? 0
        let rows = group.map { "  \($0.spec.path.joined(separator: " ").padding(to: width))  \($0.spec.summary)" }
        return """
            Usage: squall \(name) <command> [options]

            Commands:
            \(rows.joined(separator: "\n"))

            Run 'squall \(name) <command> --help' for a command's options.
            """
    }

    private static func unknownCommandMessage(_ arguments: [String]) -> String {
        let group = subcommands.filter { $0.spec.path.count > 1 && $0.spec.path[0] == arguments[0] }
        if !group.isEmpty {
            let names = group.map { $0.spec.path.joined(separator: " ") }.joined(separator: ", ")
            let given =
                arguments.count > 1
                ? "unknown command '\(arguments.prefix(2).joined(separator: " "))'"
                : "'\(arguments[0])' needs a subcommand"
            return "\(given); expected one of: \(names)"
        }
        return "unknown command '\(arguments[0])'\nRun 'squall --help' for the list of commands."
    }

    private static func usageFailure(_ message: String, command: [String] = [], console: Console) -> Int32 {
        let prefix = command.isEmpty ? "squall" : "squall \(command.joined(separator: " "))"
        console.printError("\(prefix): \(message)")
        return 2
    }
}
