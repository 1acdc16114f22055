import Foundation
import SquallCore

/// What `squall fault` needs of a JSON value (SquallCore's tree): building fault objects from flags and reading the
/// API's answers without fixing their shape.
extension JSONValue {
    /// The control API's answer in `bytes`; nil when it is not JSON.
    static func reply(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONValue.parse(bytes)
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

    /// A scalar as a command line shows it: strings without quotes; containers as JSON.
    var text: String {
        switch self {
        case .null: "null"
        case .bool(let bool): String(bool)
        case .integer(let integer): String(integer)
        case .largeInteger(let integer): String(integer)
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
