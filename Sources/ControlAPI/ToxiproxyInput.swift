import SquallCore

/// A proxy as `POST /proxies`, `POST /proxies/{name}` and `POST /populate` receive it; every field optional so
/// that the registry can name what is missing and an update can leave fields alone. Toxiproxy's format is not
/// strict: keys it does not know are ignored, as Toxiproxy does.
struct ProxyInput: Sendable {
    var name: String?
    var listen: String?
    var upstream: String?
    var enabled: Bool?

    init(_ value: JSONValue, path: String) throws(JSONError) {
        let reader = try JSONFieldReader(value.withoutNulls, path: path, expected: "a proxy object")
        name = try reader.string("name")
        listen = try reader.string("listen")
        upstream = try reader.string("upstream")
        enabled = try reader.bool("enabled")
    }

    /// The proxies of a `POST /populate` array.
    static func list(_ value: JSONValue) throws(JSONError) -> [ProxyInput] {
        var proxies: [ProxyInput] = []
        for (index, element) in try value.elements(at: "").enumerated() {
            proxies.append(try ProxyInput(element, path: JSONPath.index("", index)))
        }
        return proxies
    }
}

/// A toxic as `POST /proxies/{name}/toxics` receives it (an update reads only `toxicity` and `attributes`).
struct ToxicInput: Sendable {
    var name: String?
    var type: String?
    var stream: String?
    var toxicity: Double?
    var attributes: [String: Int64]?

    init(_ value: JSONValue) throws(JSONError) {
        let reader = try JSONFieldReader(value.withoutNulls, path: "", expected: "a toxic object")
        name = try reader.string("name")
        type = try reader.string("type")
        stream = try reader.string("stream")
        toxicity = try reader.double("toxicity")
        if let object = try reader.object("attributes", expected: "an object of whole numbers") {
            var values: [String: Int64] = [:]
            for key in object.keys { values[key] = try object.integer(key) }
            attributes = values
        }
    }
}

extension JSONValue {
    /// An object without its `null` members, which Toxiproxy's clients may send for a field they leave alone.
    fileprivate var withoutNulls: JSONValue {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { $0.value != .null })
    }
}
