/// One mistake in a scenario file: a stable `code` to compare on, the file, the JSON path (`client.retry-limit`,
/// `faults[2].rate`, `events[0].at`; empty for the whole document) and a message saying what was expected and
/// what was found.
public struct ScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake it is.
    public enum Code: String, Sendable, Hashable {
        /// The file could not be read, or is not JSON.
        case unreadable
        /// A key the format does not define at that place.
        case unknownKey
        /// A required key is absent.
        case missingKey
        /// A value of the wrong JSON type.
        case wrongType
        /// A value of the right type that is not allowed: out of range, a bad unit, a bad pattern, min > max.
        case invalidValue
        /// A name outside its vocabulary: fault action, event, expectation, job state, error code, method.
        case unknownName
        /// A fault or scenario name used twice.
        case duplicate
        /// A fault the fault engine rejected for another reason (a trigger that does not apply, …).
        case invalidFault
        /// A value over one of the loader's limits (`ScenarioLimits`: an asset's size, the scenario's asset bytes or
        /// files, its faults, events or timeout); a flag of `squall run` and `squall validate` raises it.
        case overLimit
    }

    public var code: Code
    /// The file the scenario came from (nil when loaded from bytes without a name).
    public var file: String?
    public var path: String
    /// The 1-based line and column (in UTF-8 bytes) of the mistake, or of the value at `path` (a missing key's
    /// object); nil when the file could not be read.
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(
        _ code: Code, file: String? = nil, path: String, line: Int? = nil, column: Int? = nil, _ message: String
    ) {
        self.code = code
        self.file = file
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file: path (line L, column C): message`, as `JSONError` writes it (the path and the place left out when
    /// unknown).
    public var description: String {
        let place = file ?? "<input>"
        let position = line.flatMap { line in column.map { "line \(line), column \($0)" } }
        switch (path.isEmpty, position) {
        case (true, nil): return "\(place): \(message)"
        case (true, let position?): return "\(place): \(position): \(message)"
        case (false, nil): return "\(place): \(path): \(message)"
        case (false, let position?): return "\(place): \(path) (\(position)): \(message)"
        }
    }
}

/// Every mistake found in one or more scenario files, in document order.
public struct ScenarioErrors: Error, Sendable, Hashable, CustomStringConvertible {
    public var errors: [ScenarioError]

    public init(_ errors: [ScenarioError]) {
        self.errors = errors
    }

    /// One line per error: `file: path: message`.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
