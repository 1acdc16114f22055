import FaultEngine
import SquallCore

/// Reads scenario files (DESIGN.md "Scenario files") strictly, collecting every mistake: JSON that is not RFC 8259
/// or holds a key twice (with its line and column), unknown keys at every level, wrong types, bad units, names outside the vocabularies, and the rules a run depends on (at least one
/// asset and one expectation, unique fault names, a progress event's asset that exists). `Scenarios/schema.json`
/// describes the same format for editors and other tools.
///
/// ```json
/// {"name": "cut-at-40", "description": "A reset at 40 % is resumed from the server's offset.",
///  "assets": [{"name": "photo", "size": "8MiB"}],
///  "faults": [{"name": "cut", "trigger": {"at-offset": "40%"}, "action": "reset", "times": 1}],
///  "expect": {"jobs": {"succeeded": "all"}, "appends-at-server-offset": true}}
/// ```
public enum ScenarioLoader {
    static let topKeys = [
        "name", "description", "seed", "timeout", "server", "client", "assets", "faults", "events", "expect",
    ]

    /// The scenario in `bytes` (the contents of `file`, which only names it in errors), or every mistake in it;
    /// a scenario that passes one of `limits` is a mistake too.
    public static func load(
        _ bytes: [UInt8], file: String?, limits: ScenarioLimits = ScenarioLimits()
    ) -> Result<Scenario, ScenarioErrors> {
        var diagnostics = Diagnostics(file: file)
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch {
            diagnostics.report(ScenarioError(error))
            return .failure(ScenarioErrors(diagnostics.errors))
        }
        let scenario = read(document.value, limits: limits, into: &diagnostics)
        guard var scenario, diagnostics.errors.isEmpty else {
            return .failure(ScenarioErrors(diagnostics.errors.map { located($0, in: document) }))
        }
        scenario.file = file
        return .success(scenario)
    }

    /// `error` with the line and column of the value its path names (or of the nearest enclosing one).
    static func located(_ error: ScenarioError, in document: JSONDocument) -> ScenarioError {
        guard error.line == nil, let position = document.position(of: error.path) else { return error }
        var located = error
        located.line = position.line
        located.column = position.column
        return located
    }

    private static func read(
        _ document: JSONValue, limits: ScenarioLimits, into diagnostics: inout Diagnostics
    ) -> Scenario? {
        guard let top = ObjectReader(document, path: "", expected: "a scenario object", into: &diagnostics) else {
            return nil
        }
        top.rejectUnknownKeys(topKeys, context: "a scenario", into: &diagnostics)
        top.require("name", expected: "a name such as \"cut-at-40\"", into: &diagnostics)
        top.require("description", expected: "a string saying what the scenario proves", into: &diagnostics)
        top.require("assets", expected: "an array of assets", into: &diagnostics)
        top.require("expect", expected: "an object of expectations", into: &diagnostics)
        let name = top.read("name", into: &diagnostics, identifier)
        let description = top.read("description", into: &diagnostics, nonEmptyString)
        let seed = top.read("seed", into: &diagnostics) { value, path throws(ScenarioError) in
            UInt64(try JSONValue.integer(value, path, in: 0...Int64.max))
        }
        let timeout = top.read("timeout", into: &diagnostics, JSONValue.duration)
        let server = top.fields["server"].flatMap { readServer($0, path: "server", into: &diagnostics) }
        let client = top.fields["client"].flatMap { readClient($0, path: "client", into: &diagnostics) }
        let assets = top.fields["assets"].flatMap { readAssets($0, path: "assets", into: &diagnostics) }
        let faults = top.fields["faults"].flatMap { readFaults($0, path: "faults", into: &diagnostics) }
        let events = top.fields["events"].flatMap {
            readEvents($0, path: "events", assets: assets ?? [], into: &diagnostics)
        }
        let expect = top.fields["expect"].flatMap { readExpectations($0, path: "expect", into: &diagnostics) }
        // What was read is checked against the limits even when other keys have mistakes.
        var checked = Scenario(name: "", description: "", assets: assets ?? [], events: events ?? [], expect: [])
        checked.timeout = timeout ?? checked.timeout
        checkLimits(
            checked, faultCount: entries(top.fields["faults"]), eventCount: entries(top.fields["events"]),
            limits: limits, into: &diagnostics)
        guard let name, let description, let assets, let expect else { return nil }
        return Scenario(
            name: name, description: description, seed: seed ?? 1, timeout: timeout ?? checked.timeout,
            server: server ?? ServerSpec(), client: client ?? ClientSpec(), assets: assets, faults: faults ?? [],
            events: events ?? [], expect: expect)
    }

    /// The entries of an array (0 for anything else).
    private static func entries(_ value: JSONValue?) -> Int {
        if case .array(let items)? = value { return items.count }
        return 0
    }

    /// A scenario or asset name: `[a-z0-9][a-z0-9-]*`.
    static func identifier(_ value: JSONValue, _ path: String) throws(ScenarioError) -> String {
        let text = try JSONValue.string(value, path)
        guard let first = text.utf8.first, first != UInt8(ascii: "-"), text.utf8.allSatisfy(isNameByte) else {
            throw ScenarioError(
                .invalidValue, path: path,
                "expected a name of lowercase letters, digits and '-' (not first), found \"\(text)\"")
        }
        return text
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-")
    }

    static func nonEmptyString(_ value: JSONValue, _ path: String) throws(ScenarioError) -> String {
        let text = try JSONValue.string(value, path)
        guard !text.isEmpty else { throw ScenarioError(.invalidValue, path: path, "expected a non-empty string") }
        return text
    }
}
