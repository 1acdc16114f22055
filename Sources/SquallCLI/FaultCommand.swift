import Foundation
import SquallCore

/// What every `squall fault` command shares: `--api URL` (required) and `--api-token T`, and printing a fault as
/// one line.
enum FaultCommand {
    static let apiOptions: [OptionSpec] = [
        .value("--api", "URL", help: "The control API of a running proxy, e.g. http://127.0.0.1:8474 (required)."),
        .value("--api-token", "T", help: "The API's bearer token, when it has one."),
    ]

    static let apiDiscussion = """
        The commands are clients of the proxy's control API (squall proxy --api ADDR): the server checks every
        fault and its error message is printed as is, with exit status 1.
        """

    /// The client for `--api` and `--api-token`.
    static func client(_ arguments: ParsedArguments, command: [String]) throws(UsageError) -> ControlAPIClient {
        guard let url = arguments["--api"] else { throw UsageError("--api URL is required", command: command) }
        return try ControlAPIClient(url: url, token: arguments["--api-token"], command: command)
    }

    /// `name  action  key=value …`: the fault's JSON flattened, nested keys joined with dots, sorted; then, as the
    /// fault list has them, `state=S  fired=N` and the `reason` a request could not place it.
    static func line(_ fault: JSONValue) -> String {
        guard case .object(var object) = fault else { return fault.text }
        let name = object.removeValue(forKey: "name")?.text ?? "?"
        let action = object.removeValue(forKey: "action")?.text ?? "?"
        var status: [String] = []
        if let state = object.removeValue(forKey: "state") { status.append("state=\(state.text)") }
        if let fired = object.removeValue(forKey: "fired") { status.append("fired=\(fired.text)") }
        if let reason = object.removeValue(forKey: "reason") { status.append("reason: \(reason.text)") }
        return ([name, action] + JSONValue.object(object).flattened() + status).joined(separator: "  ")
    }
}

/// `squall fault list`: the proxy's faults, one line each.
enum FaultListCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["fault", "list"],
        summary: "List the faults of a running proxy, one line each, with its state and how often it fired.",
        usage: "--api URL [--api-token T]",
        options: FaultCommand.apiOptions,
        discussion: FaultCommand.apiDiscussion)

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let client = try FaultCommand.client(arguments, command: spec.path)
        let body = try client.send(.get, "/squall/faults")
        for fault in JSONValue.reply(body)?.elements ?? [] { context.console.print(FaultCommand.line(fault)) }
        return 0
    }
}

/// `squall fault remove NAME`: removes one fault.
enum FaultRemoveCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["fault", "remove"],
        summary: "Remove a fault from a running proxy by name; effects it started stop.",
        usage: "--api URL [--api-token T] NAME",
        options: FaultCommand.apiOptions,
        maxPositionals: 1,
        discussion: FaultCommand.apiDiscussion)

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard let name = arguments.positionals.first else { throw UsageError("name the fault", command: spec.path) }
        let client = try FaultCommand.client(arguments, command: spec.path)
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? name
        try client.send(.delete, "/squall/faults/\(encoded)")
        context.console.print("removed \(name)")
        return 0
    }
}

/// `squall fault connections`: the proxy's live connections, one line each.
enum FaultConnectionsCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["fault", "connections"],
        summary: "List the live connections of a running proxy (ids for 'squall fault fire').",
        usage: "--api URL [--api-token T]",
        options: FaultCommand.apiOptions,
        discussion: "Each line: id, proxy, client address, age in seconds, bytes up and down, requests seen.")

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let client = try FaultCommand.client(arguments, command: spec.path)
        let body = try client.send(.get, "/squall/connections")
        for connection in JSONValue.reply(body)?.elements ?? [] {
            let fields = ["id", "proxy", "client", "age", "bytesUpstream", "bytesDownstream", "requests"]
            let values = fields.map { connection[$0]?.text ?? "-" }
            context.console.print(
                "\(values[0])  \(values[1])  \(values[2])  age=\(values[3])s  up=\(values[4])  down=\(values[5])  "
                    + "requests=\(values[6])")
        }
        return 0
    }
}
