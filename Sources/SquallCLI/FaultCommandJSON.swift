import Foundation

/// A JSON value, for building fault objects from flags and reading the API's answers without fixing their shape.
enum JSONValue: Codable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .integer(let integer): try container.encode(integer)
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    /// Parses `bytes`; nil when they are not JSON.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The value as JSON text with sorted keys.
    var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, numbers, booleans and nulls cannot fail (integers and finite doubles only).
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    var elements: [JSONValue] {
        if case .array(let array) = self { return array }
        return []
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// A scalar as a command line shows it: strings without quotes; containers as JSON.
    var text: String {
        switch self {
        case .null: "null"
        case .bool(let bool): String(bool)
        case .integer(let integer): String(integer)
        case .number(let number): String(number)
        case .string(let string): string
        case .array, .object: String(decoding: data, as: UTF8.self)
        }
    }

    /// `key=value` pairs of an object, nested objects flattened with dots (`match.method=PATCH`), sorted by key.
    func flattened(prefix: String = "") -> [String] {
        guard case .object(let object) = self else { return ["\(prefix)=\(text)"] }
        return object.keys.sorted().flatMap { key in
            object[key]!.flattened(prefix: prefix.isEmpty ? key : "\(prefix).\(key)")
        }
    }
}
