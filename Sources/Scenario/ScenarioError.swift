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
    }

    public var code: Code
    /// The file the scenario came from (nil when loaded from bytes without a name).
    public var file: String?
    public var path: String
    public var message: String

    public init(_ code: Code, file: String? = nil, path: String, _ message: String) {
        self.code = code
        self.file = file
        self.path = path
        self.message = message
    }

    /// `file: path: message` (the path left out when it is the whole document).
    public var description: String {
        let place = file ?? "<input>"
        return path.isEmpty ? "\(place): \(message)" : "\(place): \(path): \(message)"
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
