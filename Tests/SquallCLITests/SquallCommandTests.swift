import Foundation
import SquallCore
import Testing

@testable import SquallCLI

struct SquallCommandTests {
    /// Runs `squall` in process and returns its exit status, stdout and stderr.
    func squall(_ arguments: String..., environment: [String: String] = [:]) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: environment))
        return (status, console.standardOutput, console.standardError)
    }

    @Test func noArgumentsPrintsTheOverviewAndFails() {
        let (status, out, err) = squall()
        #expect(status == 2)
        #expect(out.isEmpty)
        #expect(err.contains("Commands:"))
    }

    @Test func helpListsEveryCommand() {
        let (status, out, _) = squall("--help")
        #expect(status == 0)
        for command in SquallCommand.subcommands {
            #expect(out.contains(command.spec.path.joined(separator: " ")))
        }
    }

    @Test(arguments: SquallCommand.subcommands.map { $0.spec.path })
    func everySubcommandHasHelp(path: [String]) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: path + ["--help"], context: CommandContext(console: console, environment: [:]))
        #expect(status == 0)
        #expect(console.standardOutput.contains("Usage: squall \(path.joined(separator: " "))"))
        let viaHelp = Console.capturing()
        _ = SquallCommand.run(arguments: ["help"] + path, context: CommandContext(console: viaHelp, environment: [:]))
        #expect(viaHelp.standardOutput == console.standardOutput)
    }

    @Test func unknownCommandExitsWithTwo() {
        let (status, _, err) = squall("frobnicate")
        #expect(status == 2)
        #expect(err.contains("unknown command 'frobnicate'"))
    }

    @Test func groupWithoutSubcommandNamesTheChoices() {
        let (status, _, err) = squall("ca")
        #expect(status == 2)
        #expect(err.contains("'ca' needs a subcommand; expected one of: ca init, ca show"))
        let (unknown, _, unknownErr) = squall("ca", "destroy")
        #expect(unknown == 2)
        #expect(unknownErr.contains("unknown command 'ca destroy'"))
    }

    /// `squall fault --help` (and `-h`, `help ca`) lists the group's commands with their summaries, exit 0.
    @Test(arguments: [["fault", "--help"], ["ca", "-h"], ["help", "ca"]])
    func aCommandGroupHasHelp(arguments: [String]) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: [:]))
        let group = arguments[0] == "help" ? arguments[1] : arguments[0]
        #expect(status == 0)
        #expect(console.standardOutput.hasPrefix("Usage: squall \(group) <command> [options]"))
        for command in SquallCommand.subcommands where command.spec.path.count > 1 && command.spec.path[0] == group {
            #expect(console.standardOutput.contains(command.spec.summary))
        }
    }

    @Test func unknownFlagExitsWithTwoAndPointsAtHelp() {
        let (status, _, err) = squall("version", "--bogus")
        #expect(status == 2)
        #expect(err.contains("squall version: unknown option '--bogus'"))
        #expect(err.contains("Run 'squall version --help' for usage."))
    }

    @Test func missingValueExitsWithTwo() {
        let (status, _, err) = squall("ca", "init", "--dir")
        #expect(status == 2)
        #expect(err.contains("option '--dir' needs a value"))
    }

    @Test func versionNamesTheLibraries() {
        let (status, out, _) = squall("version")
        #expect(status == 0)
        #expect(out.hasPrefix("squall \(SquallVersion.current)\n"))
        #expect(out.contains("OpenSSL 3."))
        #expect(out.contains("libpcap version"))
    }
}

struct ConsoleTests {
    @Test func colourOnlyOnATerminalWithoutNO_COLOR() {
        #expect(Console.standard(environment: [:], isTerminal: true).usesColor)
        #expect(!Console.standard(environment: ["NO_COLOR": "1"], isTerminal: true).usesColor)
        #expect(Console.standard(environment: ["NO_COLOR": ""], isTerminal: true).usesColor)
        #expect(!Console.standard(environment: [:], isTerminal: false).usesColor)
    }

    @Test func styledTextIsPlainWithoutColour() {
        #expect(Console.capturing().styled("ok", .green) == "ok")
        #expect(Console.standard(environment: [:], isTerminal: true).styled("ok", .green) == "\u{1B}[32mok\u{1B}[0m")
    }
}
