import HTTPWire
import SquallCore

extension FaultMatch {
    /// The match object `value` holds (see `read(_:path:)`).
    public init(_ value: JSONValue, path: String = "") throws(FaultError) {
        self = try FaultError.reading { try Self.read(value, path: path) }
    }

    /// Reads the object documented on `FaultMatch` at `path`; unknown keys and wrong types are errors.
    static func read(_ value: JSONValue, path: String) throws -> FaultMatch {
        let reader = try JSONFieldReader(value, path: path, expected: "a match object")
        try reader.rejectUnknownKeys(
            ["header", "interop", "method", "nth-connection", "nth-request", "path"], context: "a match")
        return FaultMatch(
            method: try reader.string("method").map(HTTPMethod.init(rawValue:)),
            path: try reader.string("path").map(Glob.init),
            header: try reader.read("header") { value, path in try HeaderMatch.read(value, path: path) },
            interop: try reader.int("interop"),
            nthConnection: try reader.int("nth-connection"),
            nthRequest: try reader.int("nth-request"))
    }
}

extension HeaderMatch {
    /// Reads `{"name": "Authorization", "value": "Bearer *"}`; `value` defaults to `*` (the field is present).
    static func read(_ value: JSONValue, path: String) throws -> HeaderMatch {
        let reader = try JSONFieldReader(value, path: path, expected: "an object {name, value}")
        try reader.rejectUnknownKeys(["name", "value"], context: "a header match")
        let name = try reader.require(try reader.string("name"), "name", expected: "a field name")
        return HeaderMatch(name: name, value: Glob(try reader.string("value") ?? "*"))
    }
}
