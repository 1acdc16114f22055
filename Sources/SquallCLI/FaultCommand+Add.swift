import Foundation
import SquallCore

/// `squall fault add`: builds a fault object in the scenario vocabulary from flags (or reads one from a file) and
/// posts it; the server validates it.
enum FaultAddCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["fault", "add"],
        summary: "Add a fault to a running proxy, in the scenario files' vocabulary.",
        usage: "--api URL [--api-token T] (NAME ACTION [KEY=VALUE...] [match, trigger flags] | --file F|-)",
        options: FaultCommand.apiOptions + [
            .value("--method", "M", help: "Match requests with this method (e.g. PATCH)."),
            .value("--path", "GLOB", help: "Match request paths with this glob (e.g. '/uploads/*')."),
            .value("--header", "NAME=VALUE", help: "Match requests with this field; VALUE is a glob (default *)."),
            .value("--nth-request", "N", help: "Match only the Nth matching request (from 1, across connections)."),
            .value("--nth-connection", "N", help: "Match only the Nth connection (from 1)."),
            .value("--at-offset", "POS", help: "Fire where the upload's offset crosses POS: bytes, 3MiB or 40%."),
            .value(
                "--announcement", "wait|before",
                help: "With --at-offset on a creation: wait for the client to have the 104 (default), or cut before."),
            .value(
                "--announcement-wait", "DURATION",
                help: "With --at-offset: the longest wait for the creation's 104. Default 2s."),
            .value("--after", "DURATION", help: "Fire this long after the match (e.g. 2s)."),
            .value("--after-response-bytes", "N", help: "Fire once the response body crosses N bytes."),
            .value("--window", "FROM..UNTIL", help: "Fire only inside this time window (e.g. 2s..5s or ..500ms)."),
            .value("--direction", "D", help: "The stream shaped: upstream, downstream or both."),
            .value("--times", "N", help: "Fire at most N times. Default: unlimited."),
            .value("--probability", "P", help: "Chance 0 to 1 that a match fires (from the proxy's seed). Default 1."),
            .flag("--optional", help: "The fault need not fire for a scenario to pass."),
            .value("--file", "F", help: "Read the fault (or an array of faults) as JSON from F, or stdin for -."),
        ],
        maxPositionals: Int.max,
        discussion: """
            ACTION is one of reset, close, stall, latency, bandwidth, slice, limit, slow-close, refuse, respond,
            expire-auth, strip-interim, drop-response, delay-response, rewrite-header, truncate-response; its
            attributes follow as KEY=VALUE in the scenario vocabulary: rate=64KiB, latency=250ms jitter=50ms,
            duration=2s then=close, size=1KiB, bytes=1MiB, status=503 headers.Retry-After=1 body=busy,
            header=Upload-Offset value=0, after=1KiB, challenge=Bearer. Sizes are bytes or take a unit (512KiB,
            8MiB, 1GB); durations take us, ms, s, m or h. Example:
              squall fault add --api http://127.0.0.1:8474 cut reset --method PATCH --at-offset 40% --times 1
            \(FaultCommand.apiDiscussion)
            """)

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let client = try FaultCommand.client(arguments, command: spec.path)
        let json = try body(arguments)
        let added = JSONValue.reply(try client.send(.post, "/squall/faults", json: json))
        for fault in added.map({ $0.elements.isEmpty ? [$0] : $0.elements }) ?? [] {
            context.console.print("added \(FaultCommand.line(fault))")
        }
        return 0
    }

    /// The JSON to post: the file's bytes as they are, or the fault the words and flags describe.
    static func body(_ arguments: ParsedArguments) throws -> Data {
        if let file = arguments["--file"] {
            guard arguments.positionals.isEmpty else {
                throw UsageError(
                    "--file replaces NAME ACTION and attributes; give one or the other", command: spec.path)
            }
            if file == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError("cannot read --file \(file)", command: spec.path)
            }
            return data
        }
        guard arguments.positionals.count >= 2 else {
            throw UsageError("name the fault and its action: NAME ACTION [KEY=VALUE...]", command: spec.path)
        }
        var fault = try FaultObject.action(
            arguments.positionals[1], attributes: Array(arguments.positionals.dropFirst(2)), command: spec.path)
        fault["name"] = .string(arguments.positionals[0])
        try FaultObject.addRuleFlags(arguments, to: &fault, command: spec.path)
        return JSONValue.object(fault).data
    }
}

/// `squall fault fire CONN ACTION [KEY=VALUE...]`: applies an action to a live connection now.
enum FaultFireCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["fault", "fire"],
        summary: "Apply an action to a live connection of a running proxy now.",
        usage: "--api URL [--api-token T] [--name NAME] [--direction D] CONN ACTION [KEY=VALUE...]",
        options: FaultCommand.apiOptions + [
            .value("--name", "NAME", help: "The name the firing gets in the transcript. Default 'fire'."),
            .value("--direction", "D", help: "The stream shaped: upstream, downstream or both."),
        ],
        maxPositionals: Int.max,
        discussion: """
            CONN is a connection id from 'squall fault connections'; ACTION and its KEY=VALUE attributes are as for
            'squall fault add' (e.g. squall fault fire --api URL 3 stall duration=2s).
            \(FaultCommand.apiDiscussion)
            """)

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let words = arguments.positionals
        guard words.count >= 2 else {
            throw UsageError("name the connection and the action: CONN ACTION [KEY=VALUE...]", command: spec.path)
        }
        let client = try FaultCommand.client(arguments, command: spec.path)
        var action = try FaultObject.action(words[1], attributes: Array(words.dropFirst(2)), command: spec.path)
        if let name = arguments["--name"] { action["name"] = .string(name) }
        if let direction = arguments["--direction"] { action["direction"] = .string(direction) }
        let connection = words[0].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? words[0]
        let reply = JSONValue.reply(
            try client.send(.post, "/squall/connections/\(connection)/fire", json: JSONValue.object(action).data))
        context.console.print("fired \(reply?["fired"]?.text ?? words[1]) on connection \(words[0])")
        return 0
    }
}
