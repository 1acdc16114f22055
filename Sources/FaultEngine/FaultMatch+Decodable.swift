import HTTPWire

extension FaultMatch: Decodable {
    /// Reads the object documented on `FaultMatch`; unknown keys and wrong types are errors.
    public init(from decoder: any Decoder) throws {
        let reader = try FieldReader(decoder, expected: "a match object")
        try reader.rejectUnknownKeys(
            allowed: ["method", "path", "header", "interop", "nth-connection", "nth-request"], context: "a match")
        self.init(
            method: try reader.string("method").map(HTTPMethod.init(rawValue:)),
            path: try reader.string("path").map(Glob.init),
            header: try reader.decode(HeaderMatch.self, "header", expected: "an object {name, value}"),
            interop: try reader.int("interop"),
            nthConnection: try reader.int("nth-connection"),
            nthRequest: try reader.int("nth-request"))
    }
}

extension HeaderMatch: Decodable {
    /// Reads `{"name": "Authorization", "value": "Bearer *"}`; `value` defaults to `*` (the field is present).
    public init(from decoder: any Decoder) throws {
        let reader = try FieldReader(decoder, expected: "an object {name, value}")
        try reader.rejectUnknownKeys(allowed: ["name", "value"], context: "a header match")
        let name = try reader.require(try reader.string("name"), "name", expected: "a field name")
        self.init(name: name, value: Glob(try reader.string("value") ?? "*"))
    }
}
