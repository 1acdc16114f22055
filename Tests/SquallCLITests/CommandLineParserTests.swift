import Testing

@testable import SquallCLI

struct CommandLineParserTests {
    let spec = CommandSpec(
        path: ["demo"],
        summary: "A demo command.",
        usage: "[--dir DIR] [--verbose] [PATH…]",
        options: [
            .value("--dir", "DIR", help: "A folder."),
            .flag("--verbose", help: "Say more."),
        ],
        maxPositionals: 2
    )

    @Test func parsesValuesFlagsAndPositionals() throws {
        let parsed = try CommandLineParser.parse(["a", "--dir", "/tmp/x", "--verbose", "b"], for: spec)
        #expect(parsed["--dir"] == "/tmp/x")
        #expect(parsed.has("--verbose"))
        #expect(parsed.positionals == ["a", "b"])
        #expect(!parsed.wantsHelp)
    }

    @Test func acceptsInlineValues() throws {
        let parsed = try CommandLineParser.parse(["--dir=/a=b"], for: spec)
        #expect(parsed["--dir"] == "/a=b")
    }

    @Test func doubleDashMakesTheRestPositional() throws {
        let parsed = try CommandLineParser.parse(["--", "--dir"], for: spec)
        #expect(parsed.positionals == ["--dir"])
        #expect(parsed["--dir"] == nil)
    }

    @Test func helpIsRecognisedAnywhere() throws {
        #expect(try CommandLineParser.parse(["x", "-h"], for: spec).wantsHelp)
        #expect(try CommandLineParser.parse(["--help"], for: spec).wantsHelp)
    }

    @Test func unknownOptionIsNamedWithASuggestion() {
        #expect(throws: UsageError("unknown option '--dri' (did you mean '--dir'?)", command: ["demo"])) {
            try CommandLineParser.parse(["--dri", "x"], for: spec)
        }
        #expect(throws: UsageError("unknown option '--zzz'", command: ["demo"])) {
            try CommandLineParser.parse(["--zzz"], for: spec)
        }
    }

    @Test func missingValueIsNamed() {
        #expect(throws: UsageError("option '--dir' needs a value (--dir DIR)", command: ["demo"])) {
            try CommandLineParser.parse(["--dir"], for: spec)
        }
        #expect(throws: UsageError("option '--dir' needs a value (--dir DIR)", command: ["demo"])) {
            try CommandLineParser.parse(["--dir", "--verbose"], for: spec)
        }
    }

    @Test func flagWithValueIsRejected() {
        #expect(throws: UsageError("option '--verbose' takes no value", command: ["demo"])) {
            try CommandLineParser.parse(["--verbose=yes"], for: spec)
        }
    }

    @Test func tooManyPositionalsAreRejected() {
        #expect(throws: UsageError("unexpected argument 'c'", command: ["demo"])) {
            try CommandLineParser.parse(["a", "b", "c"], for: spec)
        }
    }

    @Test func helpTextListsEveryOption() {
        let help = spec.helpText
        #expect(help.contains("Usage: squall demo [--dir DIR] [--verbose] [PATH…]"))
        #expect(help.contains("--dir DIR"))
        #expect(help.contains("--verbose"))
        #expect(help.contains("-h, --help"))
    }

    @Test(arguments: [("kitten", "sitting", 3), ("", "abc", 3), ("same", "same", 0), ("--dir", "--dri", 2)])
    func editDistance(left: String, right: String, expected: Int) {
        #expect(CommandLineParser.editDistance(left, right) == expected)
    }
}

struct ByteSizeOptionTests {
    @Test func namesTheFlagTheUnitsAndTheReasonInItsErrors() throws {
        #expect(try ByteSizeOption.parse("8MiB", option: "--size", command: ["run"]) == 8 << 20)
        #expect(
            throws: UsageError(
                "--size must be a size such as 1048576, 512KiB, 8MiB or 1GB, not '12XB': the unit \"XB\" is not one of "
                    + "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB", command: ["run"])
        ) {
            try ByteSizeOption.parse("12XB", option: "--size", command: ["run"])
        }
        #expect(
            throws: UsageError(
                "--size must be a size such as 1048576, 512KiB, 8MiB or 1GB, not '9000000TiB': it does not fit in 64 bits",
                command: ["run"])
        ) {
            try ByteSizeOption.parse("9000000TiB", option: "--size", command: ["run"])
        }
    }
}

struct DurationOptionTests {
    @Test func readsTheOneDurationGrammar() throws {
        #expect(try DurationOption.parse("500ms", option: "--backoff", command: ["upload"]) == .milliseconds(500))
        #expect(try DurationOption.parse("1d", option: "--backoff", command: ["upload"]) == .seconds(86_400))
        #expect(try DurationOption.parse("20us", option: "--backoff", command: ["upload"]) == .microseconds(20))
    }

    @Test func namesTheFlagTheUnitsAndTheReasonInItsErrors() {
        #expect(
            throws: UsageError(
                "--backoff must be a duration such as 250ms, 2s or 1d, not '5w': the unit \"w\" is not one of "
                    + "us, ms, s, m, h, d", command: ["upload"])
        ) {
            try DurationOption.parse("5w", option: "--backoff", command: ["upload"])
        }
    }

    @Test(arguments: [("500ms", Int64(1)), ("1500ms", 1), ("0s", 0), ("2m", 120), ("1d", 86_400)])
    func wholeSecondsDropTheFractionButNeverReachZeroFromAbove(text: String, seconds: Int64) throws {
        #expect(try DurationOption.seconds(text, option: "--max-age", command: ["server"]) == seconds)
    }
}
