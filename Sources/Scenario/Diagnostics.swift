import SquallCore

/// The mistakes found so far in one file; every reader appends to it instead of stopping at the first.
struct Diagnostics {
    let file: String?
    private(set) var errors: [ScenarioError] = []

    init(file: String?) {
        self.file = file
    }

    mutating func report(_ error: ScenarioError) {
        var error = error
        error.file = file
        errors.append(error)
    }

    mutating func report(_ code: ScenarioError.Code, path: String, _ message: String) {
        report(ScenarioError(code, path: path, message))
    }

    /// The value `body` reads, or nil with its error recorded.
    mutating func attempt<T>(_ body: () throws(ScenarioError) -> T) -> T? {
        do {
            return try body()
        } catch {
            report(error)
            return nil
        }
    }
}

/// One JSON object of a scenario file at `path`, read key by key: SquallCore's `JSONFieldReader` with every
/// mistake recorded in the file's diagnostics instead of thrown.
struct ObjectReader {
    let reader: JSONFieldReader

    var fields: [String: JSONValue] { reader.members }

    /// The object `value` holds, or nil with a wrong-type error naming `expected`.
    init?(_ value: JSONValue, path: String, expected: String, into diagnostics: inout Diagnostics) {
        do {
            reader = try JSONFieldReader(value, path: path, expected: expected)
        } catch {
            diagnostics.report(ScenarioError(error))
            return nil
        }
    }

    /// The path of `key` inside this object.
    func path(_ key: String) -> String { reader.path(key) }

    /// Reports each key outside `allowed` (in sorted order).
    func rejectUnknownKeys(_ allowed: [String], context: String, into diagnostics: inout Diagnostics) {
        for error in reader.unknownKeys(allowed, context: context) { diagnostics.report(ScenarioError(error)) }
    }

    /// Reports a missing key.
    func require(_ key: String, expected: String, into diagnostics: inout Diagnostics) {
        if !reader.has(key) { diagnostics.report(.missingKey, path: path(key), "missing; expected \(expected)") }
    }

    /// The value of `key` read by `parse`, nil when absent or wrong (the error recorded).
    func read<T>(
        _ key: String, into diagnostics: inout Diagnostics,
        _ parse: (JSONValue, String) throws(ScenarioError) -> T
    ) -> T? {
        guard let value = fields[key] else { return nil }
        return diagnostics.attempt { () throws(ScenarioError) in try parse(value, path(key)) }
    }
}
